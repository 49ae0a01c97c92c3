using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Reflection;
using System.Text.Json;
using FixEngine.Engine;

namespace FixEngine.Tests.Packages;

/// <summary>Each package depends on what it needs and nothing more: an application that references only FixEngine gets
/// no PostgreSQL client, no ASP.NET Core and no generic-host assembly (docs/architecture.md "Packages").</summary>
public sealed class PackageDependencyTests
{
    // The NuGet dependencies each package may declare (what `dotnet pack` writes into its nuspec), besides the FixEngine
    // package itself for the integration packages. Adding a package reference to a project fails this test until the
    // table (and docs/architecture.md) say why.
    private static readonly Dictionary<string, string[]> AllowedPackages = new()
    {
        ["FixEngine"] = ["Microsoft.Extensions.ObjectPool"],
        ["FixEngine.PostgreSQL"] = ["Npgsql"],
        ["FixEngine.Extensions.Hosting"] =
        [
            "Microsoft.Extensions.Configuration.Abstractions",
            "Microsoft.Extensions.DependencyInjection.Abstractions",
            "Microsoft.Extensions.Hosting.Abstractions",
            "Microsoft.Extensions.Logging.Abstractions",
            // AddFixEngineHealthChecks extends IHealthChecksBuilder, which is in the implementation package (ASP.NET
            // Core apps have it in their shared framework already).
            "Microsoft.Extensions.Diagnostics.HealthChecks",
        ],
        ["FixEngine.AspNetCore"] = [], // ASP.NET Core is a FrameworkReference (the shared framework), not a package
        ["FixEngine.Testing"] = [],
    };

    private static readonly string[] Integrations = ["Npgsql", "Microsoft.AspNetCore", "Microsoft.Extensions.Hosting",
        "Microsoft.Extensions.DependencyInjection", "Microsoft.Extensions.Configuration", "Microsoft.Extensions.Logging"];

    [Fact]
    public void TheCoreAssemblyReferencesOnlyTheFrameworkAndObjectPool()
    {
        Assembly core = typeof(FixEngineHost).Assembly;
        foreach (AssemblyName reference in core.GetReferencedAssemblies())
        {
            string name = reference.Name!;
            bool framework = name is "netstandard" or "mscorlib" || name.StartsWith("System.", StringComparison.Ordinal)
                || name == "System" || name.StartsWith("Microsoft.Win32.", StringComparison.Ordinal);
            Assert.True(framework || name == "Microsoft.Extensions.ObjectPool", $"FixEngine.dll references {name}");
            Assert.DoesNotContain(Integrations, i => name.StartsWith(i, StringComparison.Ordinal));
        }
    }

    [Theory]
    [InlineData("FixEngine")]
    [InlineData("FixEngine.PostgreSQL")]
    [InlineData("FixEngine.Extensions.Hosting")]
    [InlineData("FixEngine.AspNetCore")]
    [InlineData("FixEngine.Testing")]
    public void EachPackageDeclaresOnlyItsOwnDependencies(string package)
    {
        using JsonDocument assets = Assets(package);
        JsonElement framework = assets.RootElement.GetProperty("project").GetProperty("frameworks").GetProperty("net10.0");
        // What pack turns into nuspec dependencies: package references not marked PrivateAssets="all".
        var declared = new List<string>();
        foreach (JsonProperty dependency in framework.GetProperty("dependencies").EnumerateObject())
        {
            bool isPrivate = dependency.Value.TryGetProperty("suppressParent", out JsonElement suppress) && suppress.GetString() == "All";
            if (!isPrivate) declared.Add(dependency.Name);
        }
        Assert.Equal(AllowedPackages[package].OrderBy(n => n, StringComparer.Ordinal), declared.OrderBy(n => n, StringComparer.Ordinal));
        // Project references: the integration packages depend on the core, the core on nothing (the generator it ships
        // as an analyzer is built first, with PrivateAssets="all", and is no dependency).
        JsonElement restore = assets.RootElement.GetProperty("project").GetProperty("restore").GetProperty("frameworks").GetProperty("net10.0");
        var projects = restore.TryGetProperty("projectReferences", out JsonElement refs)
            ? refs.EnumerateObject().Select(p => Path.GetFileNameWithoutExtension(p.Name)).ToList()
            : [];
        Assert.Equal(package == "FixEngine" ? [] : ["FixEngine"], projects);
    }

    [Fact]
    public void AnApplicationReferencingOnlyTheCoreRestoresNoIntegrationPackage()
    {
        using JsonDocument assets = Assets("FixEngine");
        // Every package in the core's restore graph, transitively: what a console app referencing FixEngine restores.
        foreach (JsonProperty library in assets.RootElement.GetProperty("targets").GetProperty("net10.0").EnumerateObject())
        {
            string name = library.Name.Split('/')[0];
            Assert.DoesNotContain(Integrations, i => name.StartsWith(i, StringComparison.OrdinalIgnoreCase));
        }
    }

    private static JsonDocument Assets(string package)
    {
        string path = Path.Combine(RepositoryRoot(), "src", package, "obj", "project.assets.json");
        Assert.True(File.Exists(path), path + " is missing (restore the solution first)");
        return JsonDocument.Parse(File.ReadAllText(path));
    }

    private static string RepositoryRoot()
    {
        for (var dir = new DirectoryInfo(AppContext.BaseDirectory); dir is not null; dir = dir.Parent)
        {
            if (File.Exists(Path.Combine(dir.FullName, "FixEngine.sln"))) return dir.FullName;
        }
        throw new InvalidOperationException("FixEngine.sln not found above " + AppContext.BaseDirectory);
    }
}

using System;
using System.Collections.Generic;
using System.IO;
using System.Linq;
using System.Text;
using ArchUnitNET.Domain;
using ArchUnitNET.Domain.Dependencies;
using ArchUnitNET.Fluent.Slices;
using ArchUnitNET.Loader;
using ArchUnitNET.xUnit;
using Assembly = System.Reflection.Assembly;
using Type = System.Type;

namespace FixEngine.Tests.Layers;

/// <summary>The folders of every FixEngine assembly are layers (docs/architecture.md, "Layers"): each namespace
/// <c>FixEngine.X</c> depends only on namespaces of its own layer or lower ones, and the namespace graph has no cycle.
/// A new dependency that closes a cycle or points up fails here, naming the two folders and the types that made the
/// edge.</summary>
public sealed class LayerTests
{
    /// <summary>Every FixEngine production assembly this test project references (each is copied beside the tests):
    /// a new package is checked as soon as the test project references it.</summary>
    private static readonly Assembly[] s_assemblies =
    [
        .. Directory.GetFiles(AppContext.BaseDirectory, "FixEngine*.dll")
            .Select(f => Path.GetFileNameWithoutExtension(f))
            .Where(n => n is not ("FixEngine.Tests" or "FixEngine.Generators"))
            .Order(StringComparer.Ordinal)
            .Select(n => Assembly.Load(n)),
    ];

    /// <summary>The layers, lowest first: a namespace may depend on its own layer and on those before it. Within one
    /// layer the cycle check alone applies. The last layer is the integration packages beside the core.</summary>
    private static readonly string[][] s_layers =
    [
        ["Internal"],
        ["Buffers", "Collections", "Timing", "Hosting"],
        ["Codec"],
        ["Dictionary"],
        ["Store", "Logging", "Transport"],
        ["Config"],
        ["Session"],
        ["Diagnostics"],
        ["Engine"],
        ["DependencyInjection", "AspNetCore", "Testing", "PostgreSQL", "Extensions"],
    ];

    private static readonly Lazy<(Assembly Assembly, Architecture Architecture)[]> s_loaded = new(() =>
        [.. s_assemblies.Select(a => (a, new ArchLoader().LoadAssemblies(a).Build()))]);

    [Fact]
    public void TheNamespaceSlicesOfEveryAssemblyAreFreeOfCycles()
    {
        foreach ((Assembly assembly, Architecture architecture) in s_loaded.Value)
        {
            Dictionary<(string From, string To), string> edges = Edges(assembly, architecture);
            string? cycle = DescribeCycles(edges);
            Assert.True(cycle is null, $"{assembly.GetName().Name}: the folder graph has a cycle (docs/architecture.md, Layers):\n{cycle}");
        }
    }

    [Fact]
    public void ArchUnitFindsNoCycleBetweenTheNamespaceSlices()
    {
        // The same property, checked by the library on its own reading of the IL (independent of Edges below).
        foreach ((Assembly assembly, Architecture architecture) in s_loaded.Value)
        {
            SliceRuleDefinition.Slices().Matching("FixEngine.(*)").Should().BeFreeOfCycles().Check(architecture);
        }
    }

    [Fact]
    public void EveryNamespaceDependsOnlyOnItsOwnLayerOrLowerOnes()
    {
        var layerOf = new Dictionary<string, int>(StringComparer.Ordinal);
        for (int i = 0; i < s_layers.Length; i++)
        {
            foreach (string slice in s_layers[i]) layerOf.Add(slice, i);
        }
        var problems = new List<string>();
        foreach ((Assembly assembly, Architecture architecture) in s_loaded.Value)
        {
            string name = assembly.GetName().Name!;
            foreach (Type type in assembly.GetTypes())
            {
                string? slice = Slice(type.Namespace);
                if (slice is not null && !layerOf.ContainsKey(slice))
                {
                    problems.Add($"{name}: FixEngine.{slice} is in no layer: add it to LayerTests.s_layers and docs/architecture.md");
                    layerOf.Add(slice, -1);
                }
            }
            foreach (((string from, string to), string example) in Edges(assembly, architecture))
            {
                if (layerOf.TryGetValue(from, out int low) && layerOf.TryGetValue(to, out int high) && high > low && low >= 0)
                {
                    problems.Add($"{name}: {from} (layer {low}) depends on the higher {to} (layer {high}): {example}");
                }
            }
        }
        Assert.True(problems.Count == 0, string.Join("\n", problems));
    }

    [Fact]
    public void TheCoreAssemblyIsAmongTheCheckedOnes()
    {
        Assert.Contains(typeof(FixEngine.Engine.FixEngineHost).Assembly, s_assemblies);
        Assert.DoesNotContain(typeof(LayerTests).Assembly, s_assemblies);
    }

    /// <summary>The namespace slice of a type: <c>Session</c> for <c>FixEngine.Session</c> and anything below it.</summary>
    private static string? Slice(string? ns)
    {
        if (ns is null || !ns.StartsWith("FixEngine.", StringComparison.Ordinal)) return null;
        string rest = ns["FixEngine.".Length..];
        int dot = rest.IndexOf('.', StringComparison.Ordinal);
        return dot < 0 ? rest : rest[..dot];
    }

    /// <summary>Every dependency between two slices of one assembly, with the first pair of types that makes it.</summary>
    private static Dictionary<(string From, string To), string> Edges(Assembly assembly, Architecture architecture)
    {
        string name = assembly.GetName().Name!;
        var edges = new Dictionary<(string, string), string>();
        foreach (IType type in architecture.Types)
        {
            if (SimpleName(type.Assembly) != name) continue;
            string? from = Slice(type.Namespace.FullName);
            if (from is null) continue;
            foreach (ITypeDependency dependency in type.Dependencies)
            {
                IType target = dependency.Target;
                // A generic parameter is named after the method or type that declares it, not a dependency on it.
                if (target is GenericParameter || SimpleName(target.Assembly) != name) continue;
                string? to = Slice(target.Namespace.FullName);
                if (to is null || to == from) continue;
                edges.TryAdd((from, to), $"{type.FullName} uses {target.FullName}");
            }
        }
        return edges;
    }

    private static string SimpleName(ArchUnitNET.Domain.Assembly? assembly)
    {
        // Null for types the loader only saw referenced (generic parameters, types of unloaded assemblies).
        string? full = assembly?.FullName ?? assembly?.Name;
        if (full is null) return "";
        int comma = full.IndexOf(',', StringComparison.Ordinal);
        return comma < 0 ? full : full[..comma];
    }

    /// <summary>Null when the graph has no cycle; else each strongly connected group of slices and its edges.</summary>
    private static string? DescribeCycles(Dictionary<(string From, string To), string> edges)
    {
        var next = new Dictionary<string, List<string>>(StringComparer.Ordinal);
        foreach ((string from, string to) in edges.Keys)
        {
            if (!next.TryGetValue(from, out List<string>? list)) next[from] = list = [];
            list.Add(to);
            next.TryAdd(to, []);
        }
        // Tarjan's strongly connected components; a component of more than one slice is a cycle.
        int index = 0;
        var indexOf = new Dictionary<string, int>(StringComparer.Ordinal);
        var lowOf = new Dictionary<string, int>(StringComparer.Ordinal);
        var stack = new Stack<string>();
        var onStack = new HashSet<string>(StringComparer.Ordinal);
        var components = new List<List<string>>();
        void Visit(string v)
        {
            indexOf[v] = lowOf[v] = index++;
            stack.Push(v);
            onStack.Add(v);
            foreach (string w in next[v])
            {
                if (!indexOf.ContainsKey(w))
                {
                    Visit(w);
                    lowOf[v] = Math.Min(lowOf[v], lowOf[w]);
                }
                else if (onStack.Contains(w))
                {
                    lowOf[v] = Math.Min(lowOf[v], indexOf[w]);
                }
            }
            if (lowOf[v] != indexOf[v]) return;
            var component = new List<string>();
            string popped;
            do
            {
                popped = stack.Pop();
                onStack.Remove(popped);
                component.Add(popped);
            }
            while (popped != v);
            if (component.Count > 1) components.Add(component);
        }
        foreach (string v in next.Keys.Order(StringComparer.Ordinal))
        {
            if (!indexOf.ContainsKey(v)) Visit(v);
        }
        if (components.Count == 0) return null;
        var sb = new StringBuilder();
        foreach (List<string> component in components)
        {
            component.Sort(StringComparer.Ordinal);
            sb.Append("  cycle among {").AppendJoin(", ", component).Append("}:\n");
            foreach (((string from, string to), string example) in edges.OrderBy(e => e.Key.From, StringComparer.Ordinal).ThenBy(e => e.Key.To, StringComparer.Ordinal))
            {
                if (component.Contains(from) && component.Contains(to)) sb.Append("    ").Append(from).Append(" -> ").Append(to).Append(": ").Append(example).Append('\n');
            }
        }
        return sb.ToString();
    }
}

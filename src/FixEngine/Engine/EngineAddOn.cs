using System;
using System.Collections.Generic;
using System.Diagnostics.CodeAnalysis;
using System.Reflection;
using FixEngine.Config;

namespace FixEngine.Engine;

/// <summary>A part of an integration package that a settings file starts with the engine (the web console of
/// FixEngine.AspNetCore for <c>HttpAcceptPort</c>): started after the engine, disposed before it.</summary>
internal interface IEngineAddOn : IDisposable
{
    void Start();
}

/// <summary>Finds the add-ons a settings file asks for. The core references no integration package: the console is
/// looked up by name in the FixEngine.AspNetCore assembly, which is there when the application references the package;
/// when it is not, the engine refuses to start with one line naming the file, line, key and the package.</summary>
internal static class EngineAddOns
{
    internal const string HttpAcceptPortKey = "HttpAcceptPort";
    internal const string HttpAcceptAddressKey = "HttpAcceptAddress";
    private const string ConsoleTypeName = "FixEngine.AspNetCore.SettingsFileAdminConsole, FixEngine.AspNetCore";

    [UnconditionalSuppressMessage("Trimming", "IL2026", Justification = "The console type is kept by the package (DynamicDependency on its factory).")]
    [UnconditionalSuppressMessage("Trimming", "IL2057", Justification = "A constant type name; absent when the package is not referenced.")]
    [UnconditionalSuppressMessage("Trimming", "IL2075", Justification = "The factory method is kept by the package.")]
    public static IEngineAddOn? Create(FixEngineHost host, IReadOnlyList<SessionSettings> settings)
    {
        SessionSettings? first = null;
        foreach (SessionSettings s in settings)
        {
            if (s.ExtensionSettings.ContainsKey(HttpAcceptPortKey) || s.ExtensionSettings.ContainsKey(HttpAcceptAddressKey))
            {
                first = s;
                break;
            }
        }
        if (first is null) return null;
        Type? type = Type.GetType(ConsoleTypeName, throwOnError: false);
        MethodInfo? create = type?.GetMethod("Create", BindingFlags.Static | BindingFlags.Public | BindingFlags.NonPublic);
        if (create is null)
        {
            throw SettingsOrigin.Error(first, first.ExtensionSettings.ContainsKey(HttpAcceptPortKey) ? HttpAcceptPortKey : HttpAcceptAddressKey, "starts the web console of the FixEngine.AspNetCore package, which this "
                + "application does not reference: reference FixEngine.AspNetCore, or remove the key");
        }
        try
        {
            return (IEngineAddOn?)create.Invoke(null, [host, settings]);
        }
        catch (TargetInvocationException e) when (e.InnerException is not null)
        {
            System.Runtime.ExceptionServices.ExceptionDispatchInfo.Throw(e.InnerException);
            throw;
        }
    }
}

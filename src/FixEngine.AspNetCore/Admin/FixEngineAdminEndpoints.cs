using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Linq;
using System.Net;
using System.Text.Json;
using System.Threading;
using System.Threading.Tasks;
using FixEngine.Engine;
using Microsoft.AspNetCore.Builder;
using Microsoft.AspNetCore.Hosting.Server;
using Microsoft.AspNetCore.Hosting.Server.Features;
using Microsoft.AspNetCore.Http;
using Microsoft.AspNetCore.Routing;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;
using Microsoft.Extensions.Logging;

namespace FixEngine.AspNetCore;

/// <summary>Maps the FixEngine admin API and web console into an ASP.NET Core application (docs/console.md).</summary>
public static class FixEngineAdminEndpoints
{
    /// <summary>The header every action (POST) must carry, so that a page of another site cannot post to the console
    /// with the operator's cookies (a cross-site form cannot set it; a script would need a CORS preflight the console
    /// never answers).</summary>
    public const string ActionHeader = "X-FixEngine-Admin";

    /// <summary>Maps the console (page, script, style) and its API under <paramref name="pattern"/>: the session list with
    /// state, schedule, endpoint, sequence numbers, last message times, counters and store health; per-session actions
    /// (logon, logout, disconnect, reset, seqnum, enable, disable), stored messages by range, a search by tag value over
    /// the store and the message log, and a live tail of session events (server-sent events).</summary>
    /// <param name="endpoints">The application's endpoints.</param>
    /// <param name="engine">The engine to show; null resolves the <see cref="FixEngineHost"/> registered in the services
    /// (FixEngine.Extensions.Hosting's <c>AddFixEngine</c> registers one).</param>
    /// <param name="pattern">Where the console lives (default <c>/fix-admin</c>).</param>
    /// <param name="authorizationPolicy">The ASP.NET Core authorization policy every page and action requires. Without one
    /// the console serves loopback connections only, and the application stops at start with exit code 1 when the server
    /// listens on an address that is not loopback (one line naming the address, logged as Critical and written to
    /// standard error).</param>
    /// <returns>The route group, for further conventions.</returns>
    /// <exception cref="InvalidOperationException">No engine given and none registered.</exception>
    /// <remarks>Every action runs on the session's own thread (the engine's session commands) and is written to the
    /// session's event log with the user's name (<c>HttpContext.User.Identity.Name</c>, or "anonymous") and address.</remarks>
    public static RouteGroupBuilder MapFixEngineAdmin(this IEndpointRouteBuilder endpoints, FixEngineHost? engine = null,
        string pattern = "/fix-admin", string? authorizationPolicy = null)
    {
        ArgumentNullException.ThrowIfNull(endpoints);
        engine ??= endpoints.ServiceProvider.GetService<FixEngineHost>()
            ?? throw new InvalidOperationException("MapFixEngineAdmin: no FixEngineHost given and none registered (AddFixEngine of FixEngine.Extensions.Hosting registers one)");
        var service = new AdminService(engine);
        IHostApplicationLifetime? lifetime = endpoints.ServiceProvider.GetService<IHostApplicationLifetime>();
        lifetime?.ApplicationStopping.Register(service.Dispose);
        bool loopbackOnly = string.IsNullOrEmpty(authorizationPolicy);
        if (loopbackOnly && lifetime is not null)
        {
            IServiceProvider services = endpoints.ServiceProvider;
            lifetime.ApplicationStarted.Register(() => RefuseNonLoopback(services, lifetime, pattern));
        }
        return Map(endpoints, service, pattern, authorizationPolicy);
    }

    internal static RouteGroupBuilder Map(IEndpointRouteBuilder endpoints, AdminService service, string pattern, string? authorizationPolicy)
    {
        bool loopbackOnly = string.IsNullOrEmpty(authorizationPolicy);
        RouteGroupBuilder group = endpoints.MapGroup(pattern);
        if (!loopbackOnly) group.RequireAuthorization(authorizationPolicy!);
        group.MapGet("/", Guard(loopbackOnly, ctx =>
            // The page's relative links need the trailing slash.
            ctx.Request.Path.Value is string path && !path.EndsWith('/')
                ? Redirect(ctx, ctx.Request.PathBase + path + "/")
                : Asset(ctx, "index.html", "text/html; charset=utf-8")));
        group.MapGet("/app.js", Guard(loopbackOnly, ctx => Asset(ctx, "app.js", "text/javascript; charset=utf-8")));
        group.MapGet("/app.css", Guard(loopbackOnly, ctx => Asset(ctx, "app.css", "text/css; charset=utf-8")));

        // The list grows with the sessions (about 700 B each): written into the response as it goes, not buffered whole;
        // ?offset=&limit= for a page, ?state=&enabled=&q= to filter (SessionQuery).
        group.MapGet("/api/sessions", new RequestDelegate(ctx => StreamSessions(ctx, loopbackOnly, service)));
        group.MapGet("/api/session", new RequestDelegate(ctx => Handle(ctx, loopbackOnly, w =>
        {
            service.WriteSession(w, service.Resolve(ctx.Request.Query["id"]));
            return Task.CompletedTask;
        })));
        group.MapGet("/api/messages", new RequestDelegate(ctx => Handle(ctx, loopbackOnly, async w =>
        {
            var id = service.Resolve(ctx.Request.Query["id"]);
            int from = Int(ctx, "from") ?? 1;
            int to = Int(ctx, "to") ?? 0;
            int limit = Limit(ctx, 200);
            WriteMessages(w, await service.MessagesAsync(id, from, to, limit).ConfigureAwait(false));
        })));
        group.MapGet("/api/search", new RequestDelegate(ctx => Handle(ctx, loopbackOnly, async w =>
        {
            var id = service.Resolve(ctx.Request.Query["id"]);
            int tag = Int(ctx, "tag") ?? throw new AdminRequestException(400, "tag is missing (e.g. tag=11 for ClOrdID)");
            int limit = Limit(ctx, 100);
            WriteMessages(w, await service.SearchAsync(id, tag, ctx.Request.Query["value"].ToString(), limit).ConfigureAwait(false));
        })));
        group.MapPost("/api/action/{action}", new RequestDelegate(ctx => Handle(ctx, loopbackOnly, async w =>
        {
            if (!ctx.Request.Headers.ContainsKey(ActionHeader))
            {
                throw new AdminRequestException(400, "actions need the " + ActionHeader + " header (the console's page sends it)");
            }
            var id = service.Resolve(ctx.Request.Query["id"]);
            string action = (string)ctx.Request.RouteValues["action"]!;
            string text = ctx.Request.Query["text"].ToString();
            string done = await service.ActAsync(id, action, Who(ctx), text, Int(ctx, "sender"), Int(ctx, "target")).ConfigureAwait(false);
            w.WriteStartObject();
            w.WriteString("session", id.ToString());
            w.WriteString("action", action);
            w.WriteString("result", done);
            w.WriteEndObject();
        })));
        group.MapGet("/api/events", Guard(loopbackOnly, ctx => Events(ctx, service)));
        return group;
    }

    private static RequestDelegate Guard(bool loopbackOnly, RequestDelegate next) => ctx =>
        loopbackOnly && !IsLoopback(ctx)
            ? Text(ctx, 403, "the FixEngine console has no authorization policy and serves loopback connections only")
            : next(ctx);

    private static void WriteMessages(Utf8JsonWriter w, List<RenderedMessage> messages)
    {
        w.WriteStartArray();
        foreach (RenderedMessage m in messages) m.Write(w);
        w.WriteEndArray();
    }

    // How many messages api/messages and api/search answer with: 1 to SessionQuery.MaxLimit, else a 400 naming it (not
    // silently clamped: a caller asking for 5,000 must not think it saw everything).
    private static int Limit(HttpContext ctx, int byDefault)
    {
        int? limit = Int(ctx, "limit");
        if (limit is < 1 or > SessionQuery.MaxLimit)
        {
            throw new AdminRequestException(400, "limit: '" + ctx.Request.Query["limit"] + "' is not a whole number from 1 to " + SessionQuery.MaxLimit.ToString(CultureInfo.InvariantCulture));
        }
        return limit ?? byDefault;
    }

    private static int? Int(HttpContext ctx, string name)
    {
        string? v = ctx.Request.Query[name];
        if (string.IsNullOrEmpty(v)) return null;
        if (!int.TryParse(v, NumberStyles.AllowLeadingSign, CultureInfo.InvariantCulture, out int n))
        {
            throw new AdminRequestException(400, name + ": '" + v + "' is not a whole number");
        }
        return n;
    }

    /// <summary>Who asked: the authenticated user's name (or "anonymous") and the address the request came from.</summary>
    internal static string Who(HttpContext ctx)
    {
        string user = ctx.User.Identity is { IsAuthenticated: true, Name: { Length: > 0 } name } ? name : "anonymous";
        return user + "@" + (ctx.Connection.RemoteIpAddress?.ToString() ?? "?");
    }

    private static bool IsLoopback(HttpContext ctx)
    {
        IPAddress? remote = ctx.Connection.RemoteIpAddress;
        // A test server (no socket) has no address: it is in-process.
        return remote is null || IPAddress.IsLoopback(remote);
    }

    // Answers are application/json read by fetch or curl, never pasted into HTML: session IDs keep their '>' and text its
    // quotes readable ("FIX.4.4:A->B", not "FIX.4.4:A-\u003EB"); control characters and quotes are still escaped.
    private static readonly JsonWriterOptions JsonOptions = new() { Encoder = System.Text.Encodings.Web.JavaScriptEncoder.UnsafeRelaxedJsonEscaping };

    private static async Task Handle(HttpContext ctx, bool loopbackOnly, Func<Utf8JsonWriter, Task> body)
    {
        if (loopbackOnly && !IsLoopback(ctx))
        {
            await Text(ctx, 403, "the FixEngine console has no authorization policy and serves loopback connections only").ConfigureAwait(false);
            return;
        }
        var buffer = new MemoryStream();
        try
        {
            await using (var w = new Utf8JsonWriter(buffer, JsonOptions))
            {
                await body(w).ConfigureAwait(false);
            }
        }
        catch (AdminRequestException e)
        {
            await Text(ctx, e.Status, e.Message).ConfigureAwait(false);
            return;
        }
        ctx.Response.ContentType = "application/json; charset=utf-8";
        ctx.Response.Headers.CacheControl = "no-store";
        buffer.Position = 0;
        await buffer.CopyToAsync(ctx.Response.Body, ctx.RequestAborted).ConfigureAwait(false);
    }

    private static async Task StreamSessions(HttpContext ctx, bool loopbackOnly, AdminService service)
    {
        if (loopbackOnly && !IsLoopback(ctx))
        {
            await Text(ctx, 403, "the FixEngine console has no authorization policy and serves loopback connections only").ConfigureAwait(false);
            return;
        }
        SessionQuery query;
        try
        {
            query = SessionQuery.Parse(ctx.Request.Query);
        }
        catch (AdminRequestException e)
        {
            await Text(ctx, e.Status, e.Message).ConfigureAwait(false);
            return;
        }
        ctx.Response.ContentType = "application/json; charset=utf-8";
        ctx.Response.Headers.CacheControl = "no-store";
        System.IO.Pipelines.PipeWriter pipe = ctx.Response.BodyWriter;
        await using var w = new Utf8JsonWriter(pipe, JsonOptions);
        await service.WriteSessionsAsync(w, pipe, query, ctx.RequestAborted).ConfigureAwait(false);
    }

    private static Task Text(HttpContext ctx, int status, string message)
    {
        ctx.Response.StatusCode = status;
        ctx.Response.ContentType = "text/plain; charset=utf-8";
        return ctx.Response.WriteAsync(message, ctx.RequestAborted);
    }

    private static Task Redirect(HttpContext ctx, string to)
    {
        ctx.Response.Redirect(to);
        return Task.CompletedTask;
    }

    private static async Task Asset(HttpContext ctx, string name, string contentType)
    {
        using Stream? stream = typeof(FixEngineAdminEndpoints).Assembly.GetManifestResourceStream("FixEngine.AspNetCore.Admin." + name);
        if (stream is null)
        {
            await Text(ctx, 404, name + " is not in the assembly").ConfigureAwait(false);
            return;
        }
        ctx.Response.ContentType = contentType;
        ctx.Response.Headers.CacheControl = "no-cache";
        ctx.Response.Headers["X-Content-Type-Options"] = "nosniff";
        ctx.Response.Headers["Content-Security-Policy"] = "default-src 'self'; frame-ancestors 'none'";
        await stream.CopyToAsync(ctx.Response.Body, ctx.RequestAborted).ConfigureAwait(false);
    }

    // Server-sent events: the recent tail first, then each new event, a comment every 15 s keeps proxies from closing it.
    private static async Task Events(HttpContext ctx, AdminService service)
    {
        ctx.Response.ContentType = "text/event-stream";
        ctx.Response.Headers.CacheControl = "no-store";
        (AdminEvent[] recent, System.Threading.Channels.Channel<AdminEvent> channel) = service.Subscribe();
        try
        {
            foreach (AdminEvent e in recent) await WriteEvent(ctx, e).ConfigureAwait(false);
            await ctx.Response.Body.FlushAsync(ctx.RequestAborted).ConfigureAwait(false);
            while (!ctx.RequestAborted.IsCancellationRequested)
            {
                using var keepAlive = CancellationTokenSource.CreateLinkedTokenSource(ctx.RequestAborted);
                keepAlive.CancelAfter(TimeSpan.FromSeconds(15));
                try
                {
                    if (!await channel.Reader.WaitToReadAsync(keepAlive.Token).ConfigureAwait(false)) break;
                }
                catch (OperationCanceledException) when (!ctx.RequestAborted.IsCancellationRequested)
                {
                    await ctx.Response.WriteAsync(": keep-alive\n\n", ctx.RequestAborted).ConfigureAwait(false);
                    await ctx.Response.Body.FlushAsync(ctx.RequestAborted).ConfigureAwait(false);
                    continue;
                }
                while (channel.Reader.TryRead(out AdminEvent? e)) await WriteEvent(ctx, e).ConfigureAwait(false);
                await ctx.Response.Body.FlushAsync(ctx.RequestAborted).ConfigureAwait(false);
            }
        }
        catch (OperationCanceledException)
        {
            // The page was closed.
        }
        finally
        {
            service.Unsubscribe(channel);
        }
    }

    private static Task WriteEvent(HttpContext ctx, AdminEvent e)
    {
        var buffer = new MemoryStream();
        using (var w = new Utf8JsonWriter(buffer, JsonOptions))
        {
            w.WriteStartObject();
            w.WriteNumber("id", e.Id);
            w.WriteString("time", e.Time);
            w.WriteString("session", e.Session);
            w.WriteNumber("eventId", e.EventId);
            w.WriteString("eventName", e.EventName);
            w.WriteString("level", e.Level);
            w.WriteString("text", e.Text);
            w.WriteStartObject("properties");
            foreach (KeyValuePair<string, object?> p in e.Properties)
            {
                switch (p.Value)
                {
                    case int n: w.WriteNumber(p.Key, n); break;
                    case string t: w.WriteString(p.Key, t); break;
                    default: w.WriteNull(p.Key); break;
                }
            }
            w.WriteEndObject();
            w.WriteEndObject();
        }
        string json = System.Text.Encoding.UTF8.GetString(buffer.GetBuffer(), 0, (int)buffer.Length);
        return ctx.Response.WriteAsync("id: " + e.Id.ToString(CultureInfo.InvariantCulture) + "\ndata: " + json + "\n\n", ctx.RequestAborted);
    }

    // Without a policy the console is for loopback only: a server that listens elsewhere is stopped at start.
    private static void RefuseNonLoopback(IServiceProvider services, IHostApplicationLifetime lifetime, string pattern)
    {
        ICollection<string>? addresses = services.GetService<IServer>()?.Features.Get<IServerAddressesFeature>()?.Addresses;
        if (addresses is null) return;
        string? open = addresses.FirstOrDefault(a => !IsLoopbackAddress(a));
        if (open is null) return;
        ILogger logger = services.GetService<ILoggerFactory>()?.CreateLogger("FixEngine.AspNetCore.Admin") ?? Microsoft.Extensions.Logging.Abstractions.NullLogger.Instance;
        string message = $"MapFixEngineAdmin(\"{pattern}\"): no authorization policy, but the server listens on {open}: give MapFixEngineAdmin an authorizationPolicy, or listen on loopback only; stopping";
        logger.LogCritical("{Message}", message);
        // Also on standard error: an application without logging providers (or with only an exporter) would otherwise
        // exit 1 with nothing on its terminal. Not an exception: the addresses are known only once the server runs, and
        // the host catches and logs (only) what an ApplicationStarted callback throws.
        Console.Error.WriteLine(message);
        Environment.ExitCode = 1;
        lifetime.StopApplication();
    }

    internal static bool IsLoopbackAddress(string address)
    {
        if (!Uri.TryCreate(address.Replace("://*", "://0.0.0.0", StringComparison.Ordinal).Replace("://+", "://0.0.0.0", StringComparison.Ordinal), UriKind.Absolute, out Uri? uri)) return false;
        if (uri.IsLoopback) return true;
        return IPAddress.TryParse(uri.Host.Trim('[', ']'), out IPAddress? ip) && IPAddress.IsLoopback(ip);
    }
}

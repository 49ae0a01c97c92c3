using System;
using System.IO;
using FixApp;
using FixEngine.DependencyInjection;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

// A FIX.4.4 acceptor in the .NET generic host: sessions from appsettings.json ("FixEngine": a Default block inherited by
// every entry of Sessions, like [DEFAULT]), orders filled by FillApplication, engine events on ILogger. Ctrl+C or
// SIGTERM logs every session out. Any key can be overridden from the environment, e.g.
// FixEngine__Default__SocketAcceptPort=6001.
Directory.SetCurrentDirectory(AppContext.BaseDirectory);   // dictionaries/, store/ and log/ sit beside the app
HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { Args = args, ContentRootPath = AppContext.BaseDirectory });
builder.Services.AddFixEngine<FillApplication>(builder.Configuration.GetSection("FixEngine"));
using IHost host = builder.Build();
await host.RunAsync();

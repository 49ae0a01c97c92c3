using System;
using FixEngine.DependencyInjection;
using FixEngine.Samples.Acceptor;
using Microsoft.Extensions.Configuration;
using Microsoft.Extensions.DependencyInjection;
using Microsoft.Extensions.Hosting;

// A FIX acceptor inside the .NET generic host: sessions from appsettings.json ("FixEngine" section, a Default block
// inherited by every entry of Sessions), the application from DI, engine events through ILogger, and a graceful
// Logout of every session when the host stops (Ctrl+C or SIGTERM).
//   dotnet run --project samples/HostedService
// Override any key from the command line or the environment, e.g. FixEngine__Default__SocketAcceptPort=6001.
HostApplicationBuilder builder = Host.CreateApplicationBuilder(new HostApplicationBuilderSettings { Args = args, ContentRootPath = AppContext.BaseDirectory });
builder.Services.AddFixEngine<FillApplication>(builder.Configuration.GetSection("FixEngine"));
using IHost host = builder.Build();
await host.RunAsync();

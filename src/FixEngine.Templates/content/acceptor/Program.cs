using System;
using System.IO;
using System.Runtime.InteropServices;
using System.Threading;
using FixApp;
using FixEngine.Config;
using FixEngine.Engine;

// A FIX.4.4 acceptor: sessions from acceptor.cfg (QuickFIX keys), orders filled by FillApplication.
// Runs until Ctrl+C or SIGTERM, then logs every session out.
Directory.SetCurrentDirectory(AppContext.BaseDirectory);   // acceptor.cfg, dictionaries/, store/ and log/ sit beside the app
using var engine = new FixEngineHost(SettingsFile.Load("acceptor.cfg"), new FillApplication());
engine.Start();
Console.WriteLine($"listening on port(s) {string.Join(", ", engine.AcceptorPorts)} (Ctrl+C stops)");   // SocketAcceptPort=0: the port the system picked

using var stop = new ManualResetEventSlim();
Console.CancelKeyPress += (_, e) => { e.Cancel = true; stop.Set(); };
using var sigterm = PosixSignalRegistration.Create(PosixSignal.SIGTERM, c => { c.Cancel = true; stop.Set(); });
stop.Wait();
engine.Stop(TimeSpan.FromSeconds(5));

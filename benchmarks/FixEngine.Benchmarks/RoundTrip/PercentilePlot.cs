using System;
using System.Collections.Generic;
using System.Globalization;
using System.IO;
using System.Security;
using FixEngine.Benchmarks.Diagnostics;
using HdrHistogram;

namespace FixEngine.Benchmarks.RoundTrip;

/// <summary>One line of a latency-by-percentile plot.</summary>
/// <param name="Name">Legend text.</param>
/// <param name="Percentiles">Fractions in [0, 1), ascending.</param>
/// <param name="ValuesUs">Latency at each percentile, µs.</param>
public sealed record PlotSeries(string Name, double[] Percentiles, double[] ValuesUs)
{
    /// <summary>Samples <paramref name="histogram"/> at 20 points per decade of 1/(1-p), up to what its count supports.</summary>
    public static PlotSeries FromHistogram(string name, HistogramBase histogram)
    {
        var percentiles = new List<double>();
        var values = new List<double>();
        double maxDecades = Math.Min(PercentilePlot.Decades, Math.Log10(Math.Max(1, histogram.TotalCount)));
        for (int i = 0; i <= maxDecades * 20 + 1e-9; i++)
        {
            double p = 1 - Math.Pow(10, -i / 20.0);
            percentiles.Add(p);
            values.Add(Histograms.Percentile(histogram, p * 100) / 1000.0);
        }
        return new PlotSeries(name, percentiles.ToArray(), values.ToArray());
    }
}

/// <summary>Writes a latency-by-percentile SVG: x is log10(1/(1-p)) with ticks 50% .. 99.999%, y is log10(µs).</summary>
/// <remarks>Reporting only: allocates freely. Output is self-contained SVG 1.1 text.</remarks>
public static class PercentilePlot
{
    /// <summary>Decades on the x axis: 99.999% is 5.</summary>
    public const int Decades = 5;

    private const double Width = 760, Height = 440, Left = 70, Right = 210, Top = 40, Bottom = 50;

    private static readonly string[] s_colors = ["#1f77b4", "#d62728", "#2ca02c", "#ff7f0e", "#9467bd", "#8c564b", "#e377c2", "#17becf"];

    private static readonly (double P, string Label)[] s_xTicks =
        [(0.5, "50%"), (0.9, "90%"), (0.99, "99%"), (0.999, "99.9%"), (0.9999, "99.99%"), (0.99999, "99.999%")];

    /// <summary>Writes the plot.</summary>
    public static void Write(TextWriter w, string title, IReadOnlyList<PlotSeries> series)
    {
        double minUs = double.MaxValue, maxUs = double.MinValue;
        foreach (PlotSeries s in series)
        {
            foreach (double v in s.ValuesUs)
            {
                if (v <= 0) continue;
                minUs = Math.Min(minUs, v);
                maxUs = Math.Max(maxUs, v);
            }
        }
        if (minUs == double.MaxValue)
        {
            minUs = 1;
            maxUs = 10;
        }
        double yLow = Math.Floor(Math.Log10(minUs));
        double yHigh = Math.Ceiling(Math.Log10(maxUs));
        if (yHigh <= yLow) yHigh = yLow + 1;
        double plotW = Width - Left - Right, plotH = Height - Top - Bottom;
        double X(double p) => Left + Math.Min(Decades, Math.Log10(1 / (1 - p))) / Decades * plotW;
        double Y(double us) => Top + plotH - (Math.Log10(Math.Max(us, Math.Pow(10, yLow))) - yLow) / (yHigh - yLow) * plotH;

        w.WriteLine($"<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{F(Width)}\" height=\"{F(Height)}\" viewBox=\"0 0 {F(Width)} {F(Height)}\" font-family=\"sans-serif\" font-size=\"11\">");
        w.WriteLine($"<rect x=\"0\" y=\"0\" width=\"{F(Width)}\" height=\"{F(Height)}\" fill=\"white\"/>");
        w.WriteLine($"<text x=\"{F(Left)}\" y=\"22\" font-size=\"14\">{Escape(title)}</text>");
        w.WriteLine($"<rect x=\"{F(Left)}\" y=\"{F(Top)}\" width=\"{F(plotW)}\" height=\"{F(plotH)}\" fill=\"none\" stroke=\"#444\"/>");
        foreach ((double p, string label) in s_xTicks)
        {
            double x = X(p);
            w.WriteLine($"<line x1=\"{F(x)}\" y1=\"{F(Top)}\" x2=\"{F(x)}\" y2=\"{F(Top + plotH)}\" stroke=\"#ddd\"/>");
            w.WriteLine($"<text x=\"{F(x)}\" y=\"{F(Top + plotH + 16)}\" text-anchor=\"middle\">{label}</text>");
        }
        w.WriteLine($"<text x=\"{F(Left + plotW / 2)}\" y=\"{F(Height - 8)}\" text-anchor=\"middle\">percentile (log scale of 1/(1-p))</text>");
        for (double d = yLow; d <= yHigh + 1e-9; d++)
        {
            foreach (double m in new[] { 1.0, 2.0, 5.0 })
            {
                double us = m * Math.Pow(10, d);
                if (Math.Log10(us) > yHigh + 1e-9) break;
                double y = Y(us);
                w.WriteLine($"<line x1=\"{F(Left)}\" y1=\"{F(y)}\" x2=\"{F(Left + plotW)}\" y2=\"{F(y)}\" stroke=\"{(m == 1 ? "#ccc" : "#eee")}\"/>");
                w.WriteLine($"<text x=\"{F(Left - 6)}\" y=\"{F(y + 4)}\" text-anchor=\"end\">{us.ToString("0.###", CultureInfo.InvariantCulture)}</text>");
            }
        }
        w.WriteLine($"<text transform=\"translate(16 {F(Top + plotH / 2)}) rotate(-90)\" text-anchor=\"middle\">round-trip latency (µs, log scale)</text>");
        for (int i = 0; i < series.Count; i++)
        {
            PlotSeries s = series[i];
            string color = s_colors[i % s_colors.Length];
            w.Write($"<polyline fill=\"none\" stroke=\"{color}\" stroke-width=\"1.5\" points=\"");
            for (int j = 0; j < s.Percentiles.Length; j++)
            {
                if (j > 0) w.Write(' ');
                w.Write($"{F(X(s.Percentiles[j]))},{F(Y(s.ValuesUs[j]))}");
            }
            w.WriteLine("\"/>");
            double ly = Top + 10 + i * 18;
            w.WriteLine($"<line x1=\"{F(Width - Right + 12)}\" y1=\"{F(ly)}\" x2=\"{F(Width - Right + 32)}\" y2=\"{F(ly)}\" stroke=\"{color}\" stroke-width=\"2\"/>");
            w.WriteLine($"<text x=\"{F(Width - Right + 38)}\" y=\"{F(ly + 4)}\">{Escape(s.Name)}</text>");
        }
        w.WriteLine("</svg>");
    }

    private static string F(double v) => v.ToString("0.##", CultureInfo.InvariantCulture);

    private static string Escape(string text) => SecurityElement.Escape(text) ?? string.Empty;
}

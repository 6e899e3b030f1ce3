// bench/web.sh's server (see WebApi.csproj). Listens where --urls says. Built with HAND_SPANS
// (bench/peers/WebApiOtel), Catalog.Search is a span written by hand and the OpenTelemetry SDK
// exports it with ASP.NET Core's request spans, where OTEL_EXPORTER_OTLP_ENDPOINT says.
using System.Runtime.CompilerServices;
#if HAND_SPANS
using System.Diagnostics;
using OpenTelemetry;
using OpenTelemetry.Trace;
#endif

var builder = WebApplication.CreateSlimBuilder(args);
builder.Logging.ClearProviders();
#if HAND_SPANS
using TracerProvider tracing = Sdk.CreateTracerProviderBuilder()
    .AddSource("Microsoft.AspNetCore", "WebApi")
    .AddOtlpExporter()
    .Build();
#endif
var app = builder.Build();
var catalog = new Catalog(2000);
app.MapGet("/search", (string? q) => catalog.Search(q ?? "", 20));
app.MapGet("/health", () => "ok");
app.Run();

public sealed record Product(int Id, string Name, string Category, decimal Price);

public sealed class Catalog
{
    private readonly Product[] _products;

    public Catalog(int count)
    {
        string[] words = { "red", "blue", "green", "steel", "oak", "glass", "lamp", "chair", "table", "desk" };
        _products = new Product[count];
        for (int i = 0; i < count; i++)
            _products[i] = new Product(i, words[i % 10] + " " + words[(i / 10) % 10] + " " + i,
                                       words[(i / 100) % 10], 10m + i % 97);
    }

#if HAND_SPANS
    private static readonly ActivitySource Source = new("WebApi");
#endif

    [MethodImpl(MethodImplOptions.NoInlining)]
    public List<Product> Search(string query, int limit)
    {
#if HAND_SPANS
        using Activity? span = Source.StartActivity("Catalog.Search");
#endif
        var found = new List<Product>();
        foreach (Product p in _products)
            if (Matches(p, query) && found.Count < limit)
                found.Add(p);
        return found;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    private static bool Matches(Product p, string query) =>
        p.Name.Contains(query, StringComparison.OrdinalIgnoreCase) || p.Category == query;
}

// Shop's methods (woven with `span` by the tests) called inside the app's own request span; the
// SDK exports both sources' spans over OTLP where OTEL_EXPORTER_OTLP_ENDPOINT says.
using System.Diagnostics;
using OpenTelemetry;
using OpenTelemetry.Resources;
using OpenTelemetry.Trace;

public class Shop
{
    public int Order(int n) => Price(n) + 1;
    public int Price(int n) => n * 3;
    public void Fail(string why) => throw new InvalidOperationException(why);

    public async Task<int> SlowAsync(int ms)
    {
        await Task.Delay(ms);
        return ms;
    }
}

public static class Program
{
    static readonly ActivitySource App = new ActivitySource("App");

    public static async Task<int> Main()
    {
        using (TracerProvider provider = Sdk.CreateTracerProviderBuilder()
                   .ConfigureResource(r => r.AddService("otel-app"))
                   .AddSource("App", "Weft")
                   .AddOtlpExporter()
                   .Build())
        {
            var shop = new Shop();
            using (App.StartActivity("request"))
            {
                Console.WriteLine($"order {shop.Order(5)}");
                try { shop.Fail("boom"); } catch (InvalidOperationException e) { Console.WriteLine($"caught {e.Message}"); }
                Console.WriteLine($"slow {await shop.SlowAsync(60)}");
            }
        } // disposing the provider flushes the exporter
        return 0;
    }
}

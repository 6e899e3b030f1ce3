// What the span pass must make of each kind of method (tests/corpus/SpanTest.cpp): nested calls,
// a throw, async methods that complete late, fault or are canceled, ValueTasks, an iterator.
using System.Collections.Concurrent;
using System.Diagnostics;

public class Shop
{
    public int Order(int n) => Price(n) + Tax(n);
    public int Price(int n) => n * 3;
    public static int Tax(int n) => n / 10;
    public void Fail(string why) => throw new InvalidOperationException(why);

    public async Task<int> SlowAsync(int ms)
    {
        await Task.Delay(ms);
        return Price(ms);
    }

    public async Task FaultAsync()
    {
        await Task.Delay(10);
        throw new TimeoutException("late");
    }

    public async Task CancelAsync() => await Task.Delay(1000, new CancellationToken(true));

    public ValueTask<int> QuickValue(int x) => new ValueTask<int>(x);

    public async ValueTask<int> SlowValue(int ms)
    {
        await Task.Delay(ms);
        return ms;
    }

    public IEnumerable<int> Numbers()
    {
        yield return 1;
        yield return 2;
    }

    public string Ship(Parcel parcel, Speed speed) => $"{parcel.To} {speed}";
}

public enum Speed { Slow, Express }

public class Address
{
    public string City = "Oslo";
}

public class Parcel
{
    public string To = "ann \"the\" reader";
    public int Weight = 3;
    public Address Where = new Address();
}

public static class Program
{
    static readonly ActivitySource App = new ActivitySource("App");

    public static async Task<int> Main(string[] args)
    {
        var spans = new ConcurrentQueue<Activity>();
        using var listener = new ActivityListener
        {
            ShouldListenTo = s => s.Name == "App" || (args.Length > 0 && args[0] == "listen" && s.Name == "Weft"),
            Sample = (ref ActivityCreationOptions<ActivityContext> _) => ActivitySamplingResult.AllDataAndRecorded,
            ActivityStopped = a => spans.Enqueue(a),
        };
        ActivitySource.AddActivityListener(listener);

        var shop = new Shop();
        using (App.StartActivity("request"))
        {
            Console.WriteLine($"order {shop.Order(50)}");
            try { shop.Fail("boom"); } catch (InvalidOperationException e) { Console.WriteLine($"caught {e.Message}"); }
            Console.WriteLine($"slow {await shop.SlowAsync(60)}");
            try { await shop.FaultAsync(); } catch (TimeoutException e) { Console.WriteLine($"caught {e.Message}"); }
            try { await shop.CancelAsync(); } catch (OperationCanceledException) { Console.WriteLine("caught canceled"); }
            Console.WriteLine($"quick {await shop.QuickValue(7)}");
            Console.WriteLine($"slow value {await shop.SlowValue(30)}");
            Console.WriteLine($"numbers {string.Join(",", shop.Numbers())}");
            Console.WriteLine(Store.Clerk.Greet("ann"));
            Console.WriteLine($"ship {shop.Ship(new Parcel(), Speed.Express)}");
            if (args.Contains("gc"))
                GC.Collect(); // a collection, which the exporter makes a span with WEFT_GC
            Console.WriteLine($"current after the calls: {Activity.Current?.OperationName}");
        }
        foreach (Activity a in spans.OrderBy(a => a.StartTimeUtc))
        {
            if (a.Source.Name != "Weft")
                continue;
            Console.WriteLine($"span {a.OperationName} parent={a.Parent?.OperationName} kind={a.Kind} " +
                              $"status={a.Status} '{a.StatusDescription}' ms={(int)a.Duration.TotalMilliseconds} " +
                              $"version={a.Source.Version}");
            foreach (var t in a.TagObjects.OrderBy(t => t.Key))
                Console.WriteLine($"  tag {t.Key}={(t.Key == "code.file.path" ? Path.GetFileName((string)t.Value) : t.Value)}");
            foreach (ActivityEvent e in a.Events)
            {
                Console.WriteLine($"  event {e.Name}");
                foreach (var t in e.Tags.OrderBy(t => t.Key))
                    Console.WriteLine($"    {t.Key}={(t.Key == "exception.stacktrace" ? ((string)t.Value).Split('\n')[0].Trim() : t.Value)}");
            }
        }
        return 0;
    }
}

namespace Store
{
    public static class Clerk
    {
        public static string Greet(string name) => "hi " + name;
    }
}

// Serialises a few records with System.Text.Json and with Newtonsoft.Json, reads them back and
// prints what came back: the same output whether or not the libraries are instrumented; then
// serialises with System.Text.Json once more. It also collects twice. With the argument "unload" it then loads a second Newtonsoft.Json into a
// collectible AssemblyLoadContext, serialises with it, unloads it and collects until it is gone.
using System.Reflection;
using System.Runtime.CompilerServices;
using System.Runtime.Loader;
using Newtonsoft.Json;
using StjSerializer = System.Text.Json.JsonSerializer;

record Order(int Id, string Customer, decimal Total, List<string> Items);

static class Program
{
    static int Main(string[] args)
    {
        var orders = Enumerable.Range(1, 25)
            .Select(i => new Order(i, "customer-" + (i % 7), i * 1.5m,
                                   Enumerable.Range(0, i % 4).Select(k => "item" + k).ToList()))
            .ToList();
        string stj = StjSerializer.Serialize(orders);
        var fromStj = StjSerializer.Deserialize<List<Order>>(stj)!;
        string nsj = JsonConvert.SerializeObject(orders);
        var fromNsj = JsonConvert.DeserializeObject<List<Order>>(nsj)!;
        Console.WriteLine($"System.Text.Json: {fromStj.Count} orders, {stj.Length} characters, " +
                          $"total {fromStj.Sum(o => o.Total)}");
        Console.WriteLine($"Newtonsoft.Json: {fromNsj.Count} orders, {nsj.Length} characters, " +
                          $"total {fromNsj.Sum(o => o.Total)}");
        Console.WriteLine($"first: {JsonConvert.SerializeObject(fromStj[0])}");
        // System.Text.Json once more, after Newtonsoft.Json's work: a profiler's ReJIT of it,
        // asked for when it loaded, has been taken by now.
        string again = StjSerializer.Serialize(fromNsj);
        Console.WriteLine($"again: {again.Length} characters, the same: {again == stj}");
        // Two collections asked for, which a profiler's plugins can count.
        GC.Collect();
        GC.Collect(0);
        if (args.Length > 0 && args[0] == "unload" && !LoadAndUnload())
            return 2;
        return fromStj.Count == fromNsj.Count ? 0 : 1;
    }

    // Whether the collectible copy was collected. Its module unloads once the loader's own
    // finalizers ran: collections go on a while after the context is gone.
    static bool LoadAndUnload()
    {
        WeakReference context = SerializeInACollectibleContext();
        for (int i = 0; i < 20 && context.IsAlive; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
        for (int i = 0; i < 5; i++)
        {
            GC.Collect();
            GC.WaitForPendingFinalizers();
        }
        Console.WriteLine(context.IsAlive ? "collectible: still loaded" : "collectible: unloaded");
        return !context.IsAlive;
    }

    [MethodImpl(MethodImplOptions.NoInlining)]
    static WeakReference SerializeInACollectibleContext()
    {
        var context = new AssemblyLoadContext("collectible", isCollectible: true);
        string path = Path.Combine(AppContext.BaseDirectory, "Newtonsoft.Json.dll");
        Assembly json = context.LoadFromAssemblyPath(path);
        MethodInfo serialize = json.GetType("Newtonsoft.Json.JsonConvert")!
            .GetMethod("SerializeObject", new[] { typeof(object) })!;
        Console.WriteLine($"collectible: {serialize.Invoke(null, new object[] { new[] { 1, 2, 3 } })}");
        context.Unload();
        return new WeakReference(context, trackResurrection: true);
    }
}

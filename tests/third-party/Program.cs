// Serialises a few records with System.Text.Json and with Newtonsoft.Json, reads them back and
// prints what came back: the same output whether or not the libraries are instrumented. It also
// collects twice.
using Newtonsoft.Json;
using StjSerializer = System.Text.Json.JsonSerializer;

record Order(int Id, string Customer, decimal Total, List<string> Items);

static class Program
{
    static int Main()
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
        // Two collections asked for, which a profiler's plugins can count.
        GC.Collect();
        GC.Collect(0);
        return fromStj.Count == fromNsj.Count ? 0 : 1;
    }
}

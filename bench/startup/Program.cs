// Serialises a few hundred records to JSON, parses them back and prints a checksum: start-up of
// a program that spends its time in framework code (System.Text.Json, collections, LINQ).
using System.Text.Json;

record Order(int Id, string Customer, decimal Total, List<string> Items, DateTime Placed);

static class Program
{
    static int Main()
    {
        var orders = Enumerable.Range(1, 300)
            .Select(i => new Order(i, "customer-" + (i % 17), i * 1.25m,
                                   Enumerable.Range(0, i % 5).Select(k => "item" + k).ToList(),
                                   new DateTime(2026, 1, 1).AddMinutes(i)))
            .ToList();
        string json = JsonSerializer.Serialize(orders);
        var back = JsonSerializer.Deserialize<List<Order>>(json)!;
        decimal sum = back.Sum(o => o.Total) + back.Sum(o => o.Items.Count);
        Console.WriteLine($"{back.Count} orders, {json.Length} characters, checksum {sum}");
        return back.Count == orders.Count ? 0 : 1;
    }
}

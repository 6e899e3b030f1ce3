// See Services.csproj. GET /order/N on the front calls Orders.Checkout, which asks the back for
// GET /price/N (Pricing.Quote: 50 ms, then Pricing.Base); GET /refuse calls a method that throws.
var role = args[0];
var builder = WebApplication.CreateSlimBuilder();
builder.Logging.ClearProviders();
builder.WebHost.UseUrls($"http://127.0.0.1:{args[1]}");
var app = builder.Build();
if (role == "front")
{
    var orders = new Orders(new HttpClient { BaseAddress = new Uri(args[2]) });
    app.MapGet("/order/{n:int}", (int n) => orders.Checkout(n));
    app.MapGet("/refuse", () =>
    {
        try { orders.Refuse("out of stock"); }
        catch (InvalidOperationException e) { return "refused: " + e.Message; }
        return "accepted";
    });
}
else
{
    var pricing = new Pricing();
    app.MapGet("/price/{n:int}", (int n) => pricing.Quote(n));
}
app.MapGet("/health", () => "ok");
app.Run();

public sealed class Orders(HttpClient back)
{
    public async Task<string> Checkout(int n)
    {
        string price = await back.GetStringAsync($"/price/{n}");
        return $"order {n}: {price}";
    }

    public void Refuse(string why) => throw new InvalidOperationException(why);
}

public sealed class Pricing
{
    public async Task<int> Quote(int n)
    {
        await Task.Delay(50);
        return Base(n) * 2;
    }

    public int Base(int n) => n * 10;
}

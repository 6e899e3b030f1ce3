// Screenshot CHROMIUM URL OUT.png WIDTH HEIGHT SECONDS: opens URL in a headless Chromium, waits
// SECONDS for the page to render, and writes what it shows to OUT.png.
using System.Diagnostics;
using System.Net.WebSockets;
using System.Text;
using System.Text.Json;

string chromium = args[0], url = args[1], output = args[2];
int width = int.Parse(args[3]), height = int.Parse(args[4]), seconds = int.Parse(args[5]);
string profile = Path.Combine(Path.GetTempPath(), "weft-screenshot-" + Environment.ProcessId);
var browser = Process.Start(new ProcessStartInfo(chromium,
    $"--headless=new --no-sandbox --disable-gpu --hide-scrollbars --remote-debugging-port=0 " +
    $"--user-data-dir={profile} --window-size={width},{height} about:blank")
    { RedirectStandardError = true });
try
{
    // Chromium says where its DevTools endpoint is on standard error.
    string endpoint = null;
    while (endpoint == null && browser.StandardError.ReadLine() is string line)
        if (line.StartsWith("DevTools listening on "))
            endpoint = line.Substring("DevTools listening on ".Length);
    var http = new HttpClient();
    var port = new Uri(endpoint).Port;
    string pages = await http.GetStringAsync($"http://127.0.0.1:{port}/json/list");
    string pageSocket = JsonDocument.Parse(pages).RootElement.EnumerateArray()
        .First(p => p.GetProperty("type").GetString() == "page").GetProperty("webSocketDebuggerUrl").GetString();
    using var ws = new ClientWebSocket();
    await ws.ConnectAsync(new Uri(pageSocket), CancellationToken.None);
    int id = 0;
    async Task<JsonElement> Call(string method, object parameters)
    {
        int mine = ++id;
        byte[] request = JsonSerializer.SerializeToUtf8Bytes(new { id = mine, method, @params = parameters });
        await ws.SendAsync(request, WebSocketMessageType.Text, true, CancellationToken.None);
        var buffer = new byte[1 << 20];
        while (true)
        {
            var message = new MemoryStream();
            WebSocketReceiveResult r;
            do
            {
                r = await ws.ReceiveAsync(buffer, CancellationToken.None);
                message.Write(buffer, 0, r.Count);
            } while (!r.EndOfMessage);
            JsonElement reply = JsonDocument.Parse(message.ToArray()).RootElement;
            if (reply.TryGetProperty("id", out JsonElement got) && got.GetInt32() == mine)
                return reply;
        }
    }
    await Call("Page.navigate", new { url });
    await Task.Delay(TimeSpan.FromSeconds(seconds));
    JsonElement shot = await Call("Page.captureScreenshot", new { format = "png" });
    File.WriteAllBytes(output, Convert.FromBase64String(shot.GetProperty("result").GetProperty("data").GetString()));
}
finally
{
    browser.Kill(true);
    browser.WaitForExit();
    try { Directory.Delete(profile, true); } catch (IOException) { }
}

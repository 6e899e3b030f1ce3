// NettraceDump FILE [PROVIDER]: one line per event of PROVIDER (every provider without it):
// "Provider/Event<TAB>name=value<TAB>..." with the payload's fields in order. Exit 1 if the file
// does not parse.
using Microsoft.Diagnostics.Tracing;

static class Program
{
    static int Main(string[] args)
    {
        string? only = args.Length > 1 ? args[1] : null;
        try
        {
            using var source = new EventPipeEventSource(args[0]);
            // The runtime's own events through the parser that knows their names (the runtime sends
            // no manifest for them); every other provider through the manifests in the file.
            Action<TraceEvent> print = e =>
            {
                if (only != null && e.ProviderName != only)
                    return;
                var fields = new List<string> { e.ProviderName + "/" + e.EventName };
                for (int i = 0; i < e.PayloadNames.Length; i++)
                    fields.Add(e.PayloadNames[i] + "=" + Convert.ToString(e.PayloadValue(i), System.Globalization.CultureInfo.InvariantCulture));
                Console.WriteLine(string.Join("\t", fields));
            };
            source.Clr.All += print;
            source.Dynamic.All += e =>
            {
                if (e.ProviderName != "Microsoft-Windows-DotNETRuntime")
                    print(e);
            };
            source.Process();
            return 0;
        }
        catch (Exception e)
        {
            Console.Error.WriteLine("NettraceDump: " + args[0] + ": " + e.Message);
            return 1;
        }
    }
}

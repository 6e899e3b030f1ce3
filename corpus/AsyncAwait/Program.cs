// Async/await: several awaits, try/finally and try/catch across awaits, ValueTask,
// ConfigureAwait(false), async lambdas, async iterators with await foreach, and a
// hand-written awaitable. Every step is awaited sequentially, so the order of the
// output never depends on thread scheduling.
using System.Runtime.CompilerServices;
using System.Threading.Channels;

namespace Weft.Corpus.AsyncAwait;

// A custom awaitable that completes synchronously, to exercise the pattern-based
// GetAwaiter/IsCompleted/GetResult path of the compiler.
public readonly struct Immediate<T>
{
    private readonly T _value;
    public Immediate(T value) { _value = value; }
    public Awaiter GetAwaiter() => new Awaiter(_value);
    public readonly struct Awaiter : INotifyCompletion
    {
        private readonly T _value;
        public Awaiter(T value) { _value = value; }
        public bool IsCompleted => true;
        public T GetResult() => _value;
        public void OnCompleted(Action continuation) => continuation();
    }
}

public sealed class Account
{
    private int _balance;
    public string Name { get; }
    public Account(string name, int balance) { Name = name; _balance = balance; }
    public int Balance => _balance;

    public async Task DepositAsync(int amount)
    {
        await Task.Yield();
        _balance += amount;
    }

    public async ValueTask<bool> TryWithdrawAsync(int amount)
    {
        if (amount <= _balance)
        {
            // Synchronous fast path: no await happens at all.
            _balance -= amount;
            return true;
        }
        await Task.Yield();
        return false;
    }
}

public static class Program
{
    static readonly List<string> Log = new List<string>();

    static async Task<int> AddLater(int a, int b)
    {
        await Task.Yield();
        int s = a + b;
        await Task.Delay(1); // completes later; still awaited sequentially
        return s;
    }

    static async Task<int> Chain(int n)
    {
        int total = 0;
        for (int i = 1; i <= n; i++)
        {
            total += await AddLater(i, i * 10);
            if (i % 2 == 0) await Task.Yield();
        }
        return total;
    }

    static async Task<string> WithFinally(bool fail)
    {
        Log.Add("enter");
        try
        {
            await Task.Yield();
            Log.Add("after first await");
            try
            {
                await Task.Yield();
                if (fail) throw new InvalidOperationException("async boom");
                Log.Add("no failure");
                return "ok";
            }
            finally
            {
                Log.Add("inner finally");
                await Task.Yield(); // await inside finally
                Log.Add("inner finally after await");
            }
        }
        catch (InvalidOperationException e) when (e.Message.StartsWith("async"))
        {
            Log.Add("caught " + e.Message);
            await Task.Yield(); // await inside catch
            return "recovered";
        }
        finally
        {
            Log.Add("outer finally");
        }
    }

    static async Task ThrowsAfterAwait(int code)
    {
        await Task.Yield();
        throw new ArgumentOutOfRangeException("code", code, "bad code");
    }

    static async ValueTask<int> SquareValueTask(int x)
    {
        if (x < 0) return 0; // synchronous completion
        await Task.Yield();
        return x * x;
    }

    static async ValueTask LogValueTask(string s)
    {
        await Task.Yield();
        Log.Add(s);
    }

    static async Task<long> ConfigureAwaitFalse(int n)
    {
        long acc = 1;
        for (int i = 1; i <= n; i++)
        {
            await Task.Yield();
            acc = acc * 3 + await AddLater(i, 1).ConfigureAwait(false);
            await Task.Delay(0).ConfigureAwait(false);
        }
        return acc;
    }

    static async Task<string> GenericAsync<T>(T value, Func<T, Task<string>> f)
    {
        var s = await f(value);
        return typeof(T).Name + ":" + s;
    }

    static async Task<int> UsesCustomAwaitable()
    {
        int a = await new Immediate<int>(40);
        string b = await new Immediate<string>("2");
        return a + int.Parse(b);
    }

    static async Task<int> AsyncUsing()
    {
        await using (var r = new AsyncResource("R1"))
        {
            await Task.Yield();
            Log.Add("using body");
        }
        return Log.Count;
    }

    sealed class AsyncResource : IAsyncDisposable
    {
        private readonly string _name;
        public AsyncResource(string name) { _name = name; Log.Add("open " + name); }
        public async ValueTask DisposeAsync()
        {
            await Task.Yield();
            Log.Add("dispose " + _name);
        }
    }

    // ---------- async iterators ----------
    static async IAsyncEnumerable<int> Numbers(int count, [EnumeratorCancellation] CancellationToken ct = default)
    {
        try
        {
            for (int i = 0; i < count; i++)
            {
                await Task.Yield();
                ct.ThrowIfCancellationRequested();
                if (i == 7) yield break;
                yield return i * i;
            }
        }
        finally
        {
            Log.Add("Numbers finally");
        }
    }

    static async IAsyncEnumerable<string> Pairs<T>(IAsyncEnumerable<T> source)
    {
        T prev = default;
        bool first = true;
        await foreach (var item in source)
        {
            if (!first) yield return prev + "->" + item;
            prev = item;
            first = false;
        }
    }

    static async Task<int> SumAsync(IAsyncEnumerable<int> source)
    {
        int s = 0;
        await foreach (var x in source.ConfigureAwait(false)) s += x;
        return s;
    }

    static async Task<string> ChannelPipeline()
    {
        var channel = Channel.CreateUnbounded<int>(new UnboundedChannelOptions { SingleReader = true, SingleWriter = true });
        for (int i = 1; i <= 6; i++) await channel.Writer.WriteAsync(i * 11);
        channel.Writer.Complete();
        var got = new List<int>();
        await foreach (var v in channel.Reader.ReadAllAsync()) got.Add(v);
        return string.Join(",", got);
    }

    public static async Task<int> Main()
    {
        Console.WriteLine("== basic ==");
        Console.WriteLine("AddLater(2,3)=" + await AddLater(2, 3));
        Console.WriteLine("Chain(5)=" + await Chain(5));
        Console.WriteLine("Chain(12)=" + await Chain(12));

        Console.WriteLine("== try/finally across awaits ==");
        Console.WriteLine("WithFinally(false)=" + await WithFinally(false));
        Console.WriteLine("  " + string.Join(" > ", Log)); Log.Clear();
        Console.WriteLine("WithFinally(true)=" + await WithFinally(true));
        Console.WriteLine("  " + string.Join(" > ", Log)); Log.Clear();
        try { await ThrowsAfterAwait(17); }
        catch (ArgumentOutOfRangeException e) { Console.WriteLine("caught " + e.ParamName + " " + e.ActualValue); }
        Task faulted = ThrowsAfterAwait(18);
        try { await faulted; } catch (Exception e) { Console.WriteLine("faulted task: " + e.GetType().Name + " status=" + faulted.Status); }

        Console.WriteLine("== ValueTask ==");
        Console.WriteLine("SquareValueTask(-1)=" + await SquareValueTask(-1));
        Console.WriteLine("SquareValueTask(12)=" + await SquareValueTask(12));
        var acct = new Account("main", 100);
        await acct.DepositAsync(50);
        Console.WriteLine("withdraw 120: " + await acct.TryWithdrawAsync(120) + " balance=" + acct.Balance);
        Console.WriteLine("withdraw 120: " + await acct.TryWithdrawAsync(120) + " balance=" + acct.Balance);
        await LogValueTask("vt1");
        await LogValueTask("vt2");
        Console.WriteLine("  " + string.Join(" > ", Log)); Log.Clear();

        Console.WriteLine("== ConfigureAwait(false) ==");
        Console.WriteLine("ConfigureAwaitFalse(6)=" + await ConfigureAwaitFalse(6));

        Console.WriteLine("== async lambdas and generics ==");
        Func<int, Task<string>> lam = async x => { await Task.Yield(); return "L" + (x + 1); };
        Console.WriteLine(await GenericAsync(41, lam));
        Console.WriteLine(await GenericAsync("abc", async s => { await Task.Yield(); return s.ToUpperInvariant(); }));
        int captured = 5;
        Func<Task> incr = async () => { await Task.Yield(); captured += 10; };
        await incr(); await incr();
        Console.WriteLine("captured=" + captured);
        Console.WriteLine("custom awaitable=" + await UsesCustomAwaitable());
        Console.WriteLine("await using count=" + await AsyncUsing() + " " + string.Join(" > ", Log)); Log.Clear();

        Console.WriteLine("== WhenAll (results by index) ==");
        var tasks = new Task<int>[5];
        for (int i = 0; i < tasks.Length; i++) tasks[i] = AddLater(i, 100);
        int[] all = await Task.WhenAll(tasks);
        Console.WriteLine("WhenAll=" + string.Join(",", all));
        var completed = Task.FromResult(7);
        Console.WriteLine("FromResult=" + await completed + " CompletedTask done=" + Task.CompletedTask.IsCompleted);

        Console.WriteLine("== async iterators ==");
        var squares = new List<int>();
        await foreach (var s in Numbers(5)) squares.Add(s);
        Console.WriteLine("Numbers(5)=" + string.Join(",", squares) + " log=" + string.Join(",", Log)); Log.Clear();
        Console.WriteLine("Sum(Numbers(100))=" + await SumAsync(Numbers(100)) + " log=" + string.Join(",", Log)); Log.Clear();
        var pairs = new List<string>();
        await foreach (var p in Pairs(Numbers(4))) pairs.Add(p);
        Console.WriteLine("Pairs=" + string.Join(" ", pairs));
        Log.Clear();
        // Early exit from await foreach disposes the iterator, running its finally.
        await foreach (var s in Numbers(50))
        {
            if (s > 10) { Console.WriteLine("breaking at " + s); break; }
        }
        Console.WriteLine("after break log=" + string.Join(",", Log)); Log.Clear();
        using (var cts = new CancellationTokenSource())
        {
            int seen = 0;
            try
            {
                await foreach (var s in Numbers(50).WithCancellation(cts.Token))
                {
                    seen++;
                    if (seen == 3) cts.Cancel();
                }
            }
            catch (OperationCanceledException) { Console.WriteLine("cancelled after " + seen + " log=" + string.Join(",", Log)); }
            Log.Clear();
        }
        Console.WriteLine("channel=" + await ChannelPipeline());
        Console.WriteLine("done");
        return 0;
    }
}

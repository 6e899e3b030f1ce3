// `await using` (with and without a resource, and left by an exception) and `await foreach`
// (over empty, short and longer sequences, left by `break` and by `return`, in a generic method).

namespace Weft.BranchPatterns;

public sealed class Resource : IAsyncDisposable
{
    public static int Disposed;
    public ValueTask DisposeAsync() { Disposed++; return ValueTask.CompletedTask; }
}

public static class AsyncPatterns
{
    static async IAsyncEnumerable<int> Numbers(int n, bool yieldFirst)
    {
        if (yieldFirst)
            await Task.Yield();
        for (int i = 0; i < n; i++)
        {
            if (i % 3 == 2)
                await Task.Yield();
            yield return i;
        }
    }

    public static async Task<int> UsingAsync(bool make, bool fail)
    {
        await using (var r = make ? new Resource() : null)
        {
            if (fail)
                throw new InvalidOperationException("fail");
            await Task.Yield();
        }
        await using var second = new Resource();
        return Resource.Disposed;
    }

    public static async Task<int> ForeachAsync(int n, int stopAt)
    {
        int sum = 0;
        await foreach (int x in Numbers(n, n > 2))
        {
            if (x == stopAt)
                break;
            sum += x;
        }
        return sum;
    }

    public static async Task<T> FirstOrDefault<T>(IAsyncEnumerable<T> xs, Func<T, bool> match)
    {
        await foreach (T x in xs)
            if (match(x))
                return x;
        return default;
    }

    public static async Task<int> Run()
    {
        int r = 0;
        r += await UsingAsync(true, false) + await UsingAsync(false, false);
        try { await UsingAsync(true, true); } catch (InvalidOperationException) { r++; }
        for (int i = 0; i < 3; i++)
            r += await ForeachAsync(4 + i, i == 1 ? 2 : -1);
        r += await ForeachAsync(0, 0);
        r += await FirstOrDefault(Numbers(5, false), static x => x > 2);
        r += await FirstOrDefault(Numbers(2, true), x => x > r);
        return r;
    }
}

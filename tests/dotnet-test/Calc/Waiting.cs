namespace Calc;

public static class Waiting
{
    public static async Task<int> TwiceAsync(int x, bool yield)
    {
        if (yield)
            await Task.Yield();
        return x * 2;
    }

    public static async Task<int> TotalAsync(IAsyncEnumerable<int> values)
    {
        int total = 0;
        await foreach (int v in values)
            total += v;
        return total;
    }

    public static async IAsyncEnumerable<int> Count(int n)
    {
        for (int i = 1; i <= n; i++)
        {
            await Task.Yield();
            yield return i;
        }
    }
}

// Collects a known number of times per generation and allocates a known amount (64 arrays of
// 1 MiB, kept, then 32 MiB more in 4 KiB arrays, dropped), then prints what the runtime counted:
// "collections gen0 N gen1 N gen2 N" and "allocated N".
static class Program
{
    static int Main()
    {
        for (int i = 0; i < 3; i++) GC.Collect(0);
        for (int i = 0; i < 2; i++) GC.Collect(1);
        for (int i = 0; i < 2; i++) GC.Collect(2, GCCollectionMode.Forced, blocking: true);
        long before = GC.GetTotalAllocatedBytes(precise: true);
        var kept = new List<byte[]>();
        for (int i = 0; i < 64; i++) kept.Add(new byte[1 << 20]);
        long sum = 0;
        for (int i = 0; i < 8192; i++) { var a = new byte[4096]; a[i % 4096] = 1; sum += a.Length; }
        GC.Collect(2, GCCollectionMode.Forced, blocking: true);
        long allocated = GC.GetTotalAllocatedBytes(precise: true) - before;
        GC.KeepAlive(kept);
        Console.WriteLine($"collections gen0 {GC.CollectionCount(0)} gen1 {GC.CollectionCount(1)} gen2 {GC.CollectionCount(2)}");
        Console.WriteLine($"allocated {allocated} {sum}");
        return 0;
    }
}

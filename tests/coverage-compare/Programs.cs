// Each corpus program's and branch pattern program's entry point, run once from a test (its output
// goes to the test's console). The programs are referenced as projects, so both coverage tools
// measure them.
using System.Reflection;
using Xunit;

namespace Weft.CoverageCompare;

public class Programs
{
    static void Run(string assembly)
    {
        MethodInfo entry = Assembly.Load(assembly).EntryPoint;
        Assert.NotNull(entry);
        object[] args = entry.GetParameters().Length == 0 ? null : new object[] { Array.Empty<string>() };
        object result = entry.Invoke(null, args);
        if (result is int code)
            Assert.Equal(0, code);
    }

    [Fact] public void Switches() => Run("Switches");
    [Fact] public void Closures() => Run("Closures");
    [Fact] public void AsyncAwait() => Run("AsyncAwait");
    [Fact] public void Iterators() => Run("Iterators");
    [Fact] public void Exceptions() => Run("Exceptions");
    [Fact] public void Linq() => Run("Linq");
    [Fact] public void FSharpPatterns() => Run("FSharpPatterns");
    [Fact] public void FSharpComputations() => Run("FSharpComputations");
    [Fact] public void BranchPatterns() => Run("BranchPatterns");
    [Fact] public void BranchPatternsOptimized() => Run("BranchPatternsOptimized");
    [Fact] public void FSharpBranchPatterns() => Run("FSharpBranchPatterns");
}

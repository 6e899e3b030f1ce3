// A class and its tests: the tests run in the test host, the one process of `dotnet test`'s tree
// that weft run instruments by default.
using Xunit;

namespace RunTree;

public static class Counting
{
    public static int Vowels(string text)
    {
        int n = 0;
        foreach (char c in text)
            if ("aeiouAEIOU".Contains(c))
                n++;
        return n;
    }

    public static string Describe(int n) => n switch
    {
        0 => "none",
        1 => "one",
        _ => "many",
    };
}

public class CountingTests
{
    [Fact]
    public void CountsVowels() => Assert.Equal(3, Counting.Vowels("weaving"));

    [Theory]
    [InlineData(0, "none")]
    [InlineData(1, "one")]
    [InlineData(5, "many")]
    public void Describes(int n, string expected) => Assert.Equal(expected, Counting.Describe(n));
}

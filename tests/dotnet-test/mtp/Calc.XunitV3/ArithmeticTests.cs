using Calc;
using Xunit;

namespace Calc.XunitV3;

public class ArithmeticTests
{
    [Theory]
    [InlineData(-3, 3)]
    [InlineData(4, 4)]
    public void Abs(int x, int expected) => Assert.Equal(expected, Arithmetic.Abs(x));

    [Fact]
    public void Sign() => Assert.Equal("zero", Arithmetic.Sign(0));

    [Fact]
    public void Sum()
    {
        Assert.Equal(6, Arithmetic.Sum(new[] { 1, 2, 3 }));
        Assert.Equal(2, Arithmetic.Sum(new[] { 1, 2, 3 }, v => v % 2 == 0));
    }

    [Fact]
    public async Task Waits()
    {
        Assert.Equal(4, await Waiting.TwiceAsync(2, true));
        Assert.Equal(6, await Waiting.TotalAsync(Waiting.Count(3)));
    }
}

using Calc;
using Xunit;

namespace Calc.MoreTests;

public class MoreTests
{
    [Fact]
    public void Signs()
    {
        Assert.Equal("negative", Arithmetic.Sign(-1));
        Assert.Equal("positive", Arithmetic.Sign(1));
    }

    [Fact]
    public async Task DoesNotYield() => Assert.Equal(2, await Waiting.TwiceAsync(1, false));
}

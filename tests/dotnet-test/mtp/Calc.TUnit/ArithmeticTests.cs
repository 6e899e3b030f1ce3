using Calc;

namespace Calc.TUnit;

public class ArithmeticTests
{
    [Test]
    [Arguments(-3, 3)]
    [Arguments(4, 4)]
    public async Task Abs(int x, int expected) => await Assert.That(Arithmetic.Abs(x)).IsEqualTo(expected);

    [Test]
    public async Task Sign() => await Assert.That(Arithmetic.Sign(0)).IsEqualTo("zero");

    [Test]
    public async Task Sum()
    {
        await Assert.That(Arithmetic.Sum(new[] { 1, 2, 3 })).IsEqualTo(6);
        await Assert.That(Arithmetic.Sum(new[] { 1, 2, 3 }, v => v % 2 == 0)).IsEqualTo(2);
    }

    [Test]
    public async Task Waits()
    {
        await Assert.That(await Waiting.TwiceAsync(2, true)).IsEqualTo(4);
        await Assert.That(await Waiting.TotalAsync(Waiting.Count(3))).IsEqualTo(6);
    }
}

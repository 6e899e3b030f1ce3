using Calc;
using NUnit.Framework;

namespace Calc.NUnit;

public class SumTests
{
    [Test]
    public void KeepsOdd() => Assert.That(Arithmetic.Sum(new[] { 1, 2, 3 }, v => v % 2 == 1), Is.EqualTo(4));

    [TestCase(-7, 7)]
    public void Abs(int x, int expected) => Assert.That(Arithmetic.Abs(x), Is.EqualTo(expected));
}

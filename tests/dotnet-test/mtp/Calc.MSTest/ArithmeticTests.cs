using Calc;
using Microsoft.VisualStudio.TestTools.UnitTesting;

namespace Calc.MSTest;

[TestClass]
public class ArithmeticTests
{
    [TestMethod]
    [DataRow(-3, 3)]
    [DataRow(4, 4)]
    public void Abs(int x, int expected) => Assert.AreEqual(expected, Arithmetic.Abs(x));

    [TestMethod]
    public void Sign() => Assert.AreEqual("zero", Arithmetic.Sign(0));

    [TestMethod]
    public void Sum()
    {
        Assert.AreEqual(6, Arithmetic.Sum(new[] { 1, 2, 3 }));
        Assert.AreEqual(2, Arithmetic.Sum(new[] { 1, 2, 3 }, v => v % 2 == 0));
    }

    [TestMethod]
    public async Task Waits()
    {
        Assert.AreEqual(4, await Waiting.TwiceAsync(2, true));
        Assert.AreEqual(6, await Waiting.TotalAsync(Waiting.Count(3)));
    }
}

using Sample.Greeter;
using Xunit;

namespace Sample.Greeter.Tests;

public class GreetingTests
{
    [Fact]
    public void HelloNames() => Assert.Equal("Hello, ann!", Greeting.Hello("ann"));

    [Fact]
    public void ShoutsEmpty() => Assert.Equal("HEY!", Greeting.Shout(""));

    [Fact]
    public void CountsLongNames() => Assert.Equal(1, Greeting.Count(new[] { "ann", "carol" }));
}

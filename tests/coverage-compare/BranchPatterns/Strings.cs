// A switch on a string that the compiler lowers to a chain of string.op_Equality (few cases): a
// switch expression over a generic argument's name (nameof arms, a default arm), a switch
// statement with `when`; and lambdas in a generic class (their cache a field of a generic class,
// whose check coverlet.msbuild 10.0.1 counts), as vs-solutionpersistence writes them. coverlet.MTP
// 10.1.0 leaves out the last comparison's outcomes and those cache checks (newer rules).

namespace Weft.BranchPatterns;

public abstract class Decorator { }
public sealed class BuildDecorator : Decorator { }
public sealed class PlatformDecorator : Decorator { }
public sealed class ProjectDecorator : Decorator { }
public sealed class OtherDecorator : Decorator { }

public class Lictionary<TKey, TValue> : List<KeyValuePair<TKey, TValue>>
{
    public IEnumerable<TKey> Keys => this.Select(x => x.Key);
    public IEnumerable<TValue> Values => this.Select(x => x.Value);
}

public static class Strings
{
    public static string Next<TDecorator>() where TDecorator : Decorator
    {
        return typeof(TDecorator).Name switch
        {
            nameof(BuildDecorator) => "platform",
            nameof(PlatformDecorator) => "project",
            nameof(ProjectDecorator) => null,
            _ => null,
        };
    }

    public static int Section(string id, bool folder)
    {
        switch (id)
        {
            case "SolutionItems" when folder:
                return 1;
            case "ProjectDependencies" when !folder:
                return 2;
            default:
                return 0;
        }
    }

    public static int Run()
    {
        int r = (Next<BuildDecorator>() ?? "").Length + (Next<PlatformDecorator>() ?? "").Length;
        r += (Next<ProjectDecorator>() ?? "-").Length;
        r += Section("SolutionItems", true) + Section("SolutionItems", false) + Section("ProjectDependencies", false)
             + Section("Other", true);
        var l = new Lictionary<string, int> { new("a", 1), new("b", 2) };
        r += l.Values.Sum();
        return r;
    }
}

using System;
using System.Reflection;

// Each method's body is replaced by the test; these bodies only give the signatures.
public static class Rules
{
    public static int Field;
    public static int Id(int x) => x;
    public static void Nop() { }
    public static string Text() => "";

    public static int TailCallNotFollowedByRet() => 0;
    public static int TailCallInTryBlock() => 0;
    public static int TailCallInCatchHandler() => 0;
    public static void TailCallInFilter() { }
    public static int TailCallWithValuesBeneath() => 0;
    public static int TailCallOfVoidMethod() => 0;
    public static string ConstrainedCallOfInstanceMethod() => "";
    public static int VolatileBeforeAdd() => 0;
    public static int ReadonlyBeforeLdelem() => 0;
    public static int UnalignedBeforeLdsfld() => 0;
    public static int UnalignedByThree() => 0;
    public static int BranchToPrefixedInstruction() => 0;
    public static void PrefixEndsTheCode() { }
    public static int RegionStartsAfterPrefix() => 0;
    public static void TryEnteredWithValues() { }
    public static void LeaveWithValues() { }
    public static void EndfinallyWithValues() { }
    public static void EndfilterWithTwoValues() { }
    public static int RetWithExtraValue() => 0;
    public static void LocallocWithExtraValue() { }
    public static void LocallocInHandler() { }
    public static void JmpWithValues() { }
    public static void JmpInTryBlock() { }
    public static void ArglistInFixedMethod() { }
}

public static class Program
{
    // Runs each named method and prints what happened: "ran", or the exception the runtime
    // raised for the body (InvalidProgramException when the JIT refused it).
    public static int Main(string[] names)
    {
        foreach (string name in names)
        {
            MethodInfo m = typeof(Rules).GetMethod(name);
            string outcome;
            try
            {
                m.Invoke(null, null);
                outcome = "ran";
            }
            catch (TargetInvocationException e)
            {
                outcome = e.InnerException.GetType().Name;
            }
            Console.WriteLine(name + ": " + outcome);
        }
        return 0;
    }
}

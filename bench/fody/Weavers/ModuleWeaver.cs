// MethodTimer as a Fody in-solution weaver (Mono.Cecil), for bench/fody.sh: the IL weft's
// method-timer pass (examples/csharp/MethodTimer) puts in the same methods, so that the two
// builds' programs print the same lines.
using System.Collections.Generic;
using System.Linq;
using Fody;
using Mono.Cecil;
using Mono.Cecil.Cil;
using Mono.Cecil.Rocks;

public class ModuleWeaver : BaseModuleWeaver
{
    public override IEnumerable<string> GetAssembliesForScanning() { yield return "netstandard"; yield return "mscorlib"; yield return "System.Runtime"; yield return "System.Console"; }

    public override void Execute()
    {
        var stopwatch = FindTypeDefinition("System.Diagnostics.Stopwatch");
        var timeSpan = FindTypeDefinition("System.TimeSpan");
        var console = FindTypeDefinition("System.Console");
        var getTimestamp = ModuleDefinition.ImportReference(stopwatch.Methods.First(m => m.Name == "GetTimestamp"));
        var getElapsed = ModuleDefinition.ImportReference(stopwatch.Methods.First(m => m.Name == "GetElapsedTime" && m.Parameters.Count == 1));
        var totalMs = ModuleDefinition.ImportReference(timeSpan.Methods.First(m => m.Name == "get_TotalMilliseconds"));
        var concat = ModuleDefinition.ImportReference(TypeSystem.StringDefinition.Methods.First(m => m.Name == "Concat" && m.Parameters.Count == 3 && m.Parameters.All(p => p.ParameterType.FullName == "System.Object")));
        var writeLine = ModuleDefinition.ImportReference(console.Methods.First(m => m.Name == "WriteLine" && m.Parameters.Count == 1 && m.Parameters[0].ParameterType.FullName == "System.String"));
        var timeSpanRef = ModuleDefinition.ImportReference(timeSpan);
        foreach (var type in ModuleDefinition.GetTypes())
            foreach (var method in type.Methods.Where(m => m.HasBody && m.CustomAttributes.Any(a => a.AttributeType.Name == "TimeAttribute")))
            {
                var body = method.Body;
                var il = body.GetILProcessor();
                var start = new VariableDefinition(TypeSystem.Int64Reference);
                var elapsed = new VariableDefinition(timeSpanRef);
                body.Variables.Add(start);
                body.Variables.Add(elapsed);
                var first = body.Instructions[0];
                il.InsertBefore(first, il.Create(OpCodes.Call, getTimestamp));
                il.InsertBefore(first, il.Create(OpCodes.Stloc, start));
                string label = "MethodTimer: " + type.FullName + "::" + method.Name + " ";
                foreach (var ret in body.Instructions.Where(i => i.OpCode == OpCodes.Ret).ToList())
                {
                    var code = new[]
                    {
                        il.Create(OpCodes.Ldstr, label), il.Create(OpCodes.Ldloc, start), il.Create(OpCodes.Call, getElapsed),
                        il.Create(OpCodes.Stloc, elapsed), il.Create(OpCodes.Ldloca, elapsed), il.Create(OpCodes.Call, totalMs),
                        il.Create(OpCodes.Box, TypeSystem.DoubleReference), il.Create(OpCodes.Ldstr, " ms"),
                        il.Create(OpCodes.Call, concat), il.Create(OpCodes.Call, writeLine),
                    };
                    foreach (var i in code)
                        il.InsertBefore(ret, i);
                    foreach (var i in body.Instructions)
                    {
                        if (i.Operand == ret && i != code[0]) i.Operand = code[0];
                        if (i.Operand is Instruction[] targets)
                            for (int k = 0; k < targets.Length; ++k) if (targets[k] == ret) targets[k] = code[0];
                    }
                    foreach (var h in body.ExceptionHandlers)
                    {
                        if (h.TryEnd == ret) h.TryEnd = code[0];
                        if (h.HandlerEnd == ret) h.HandlerEnd = code[0];
                    }
                }
                body.OptimizeMacros();
            }
    }

    public override bool ShouldCleanReference => false;
}

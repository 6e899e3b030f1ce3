// BranchPatterns' patterns as F# writes them, each run with inputs that take both ways of its
// branches and inputs that take one way only, in loops: closures and function values passed to
// calls and kept in properties, matches with `when` guards, records copied `with` new fields,
// query expressions, task and seq expressions with `use` and `for`, generic functions, a state
// machine matched on a union in a loop, and a while loop left through a flag. The output is the
// same at every run.
module Weft.FSharpBranchPatterns.Program

open System
open System.Threading
open System.Threading.Tasks

type State =
    | Start
    | Value
    | PostValue
    | Finished

type Shape =
    | Circle of radius: float
    | Rect of w: float * h: float

type Person = { Name: string; Age: int; City: string }

type Holder(seed: int) =
    member val Pick: int -> int = (fun x -> if x > 2 then x else -x) with get, set
    member val Twice: int -> int = (fun x -> x * 2)
    member _.Seed = seed
    new() = Holder(1)

type Reader(items: int[]) =
    let mutable state = Start
    let mutable pos = 0
    member _.Read() =
        let mutable result = None
        while result.IsNone do
            match state with
            | Start
            | Value ->
                if pos >= items.Length then
                    state <- Finished
                else
                    state <- (if items.[pos] % 2 = 0 then Value else PostValue)
                    pos <- pos + 1
                    result <- Some true
            | PostValue ->
                state <- Start
                if pos < items.Length && items.[pos] > 3 then result <- Some true
            | Finished -> result <- Some false
        result.Value

let describe shape limit =
    match shape with
    | Circle r when r > 10.0 && limit > 3 -> "big circle"
    | Circle r when r = 0.0 -> "dot"
    | Circle _ -> "circle"
    | Rect (w, h) when w = h -> "square"
    | Rect (w, h) when w < 1.0 || h < 1.0 -> "thin"
    | Rect _ -> "rect"

let largest (xs: 'T seq) : 'T option when 'T :> IComparable<'T> =
    let mutable best = None
    for x in xs do
        match best with
        | Some b when x.CompareTo(b) <= 0 -> ()
        | _ -> best <- Some x
    best

let convert (f: 'a -> 'b) (keep: 'a -> bool) (xs: 'a list) =
    xs |> List.filter keep |> List.map f

let adults (people: Person list) =
    query {
        for p in people do
        where (p.Age >= 18)
        sortBy p.Name
        select (if p.Age > 60 then p.Name + "!" else p.Name)
    }
    |> Seq.toList

let countAsync (n: int) (token: CancellationToken) =
    task {
        use registration = token.UnsafeRegister((fun o -> (o :?> int ref).Value <- 1), ref 0)
        let mutable sum = 0
        for i in 0 .. n - 1 do
            if i % 2 = 0 then
                do! Task.Yield()
            sum <- sum + i
        return sum
    }

let numbers n =
    seq {
        use _ = { new IDisposable with member _.Dispose() = () }
        for i in 0 .. n - 1 do
            if i % 3 <> 1 then
                yield i
    }

[<EntryPoint>]
let main _ =
    let mutable r = 0
    for h in [ Holder(); Holder(3); Holder() ] do
        r <- r + h.Pick h.Seed + h.Twice h.Seed
    let reader = Reader([| 1; 4; 2; 7; 5 |])
    while reader.Read() do
        r <- r + 1
    for s in [ Circle 20.0; Circle 0.0; Circle 2.0; Rect(2.0, 2.0); Rect(0.5, 3.0); Rect(2.0, 3.0) ] do
        r <- r + (describe s 4).Length + (describe s 2).Length
    let p = { Name = "a"; Age = 30; City = "x" }
    let people = [ p; { p with Name = "b"; Age = 17 }; { p with Name = "c"; Age = 70 } ]
    r <- r + (adults people |> List.sumBy (fun s -> s.Length))
    r <- r + (largest [ 3; 9; 2 ] |> Option.defaultValue 0) + (largest ([]: int list) |> Option.defaultValue 0)
    r <- r + (convert (fun x -> x * 2) (fun x -> x > 1) [ 1; 2; 3 ] |> List.sum)
    r <- r + (convert string (fun _ -> true) [ 1; 2 ] |> List.length)
    use cts = new CancellationTokenSource()
    cts.Cancel()
    r <- r + (countAsync 5 cts.Token).Result + (countAsync 0 CancellationToken.None).Result
    r <- r + Seq.sum (numbers 7) + Seq.length (numbers 0)
    printfn "fsharp %d" r
    0

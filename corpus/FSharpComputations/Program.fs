// Computation expressions: seq, async, task, list and array comprehensions, lazy values and a
// builder of the program's own. Everything runs to completion before it is printed, so the
// output does not depend on the thread pool's timing.
module Weft.Corpus.FSharpComputations.Program

open System
open System.Threading.Tasks

let log = ResizeArray<string>()

// seq: laziness, yield!, recursion, try/finally and use inside a sequence.
let rec countdown n =
  seq {
    if n > 0 then
      yield n
      yield! countdown (n - 1)
  }

let naturals = Seq.initInfinite id

type Tracker(name: string) =
  do log.Add("open " + name)
  interface IDisposable with
    member _.Dispose() = log.Add("close " + name)

let guarded =
  seq {
    use _t = new Tracker("seq")
    try
      for i in 1..5 do
        log.Add(sprintf "yield %d" i)
        yield i * i
    finally
      log.Add("finally in seq")
  }

// async: let!, do!, return!, try/with, try/finally, parallel results in order.
let square x = async { return x * x }

let rec sumAsync (xs: int list) =
  async {
    match xs with
    | [] -> return 0
    | x :: rest ->
      let! s = sumAsync rest
      let! q = square x
      return s + q
  }

let failing =
  async {
    try
      do! Async.Sleep 1
      failwith "async failure"
      return 0
    with e -> return e.Message.Length
  }

let withFinally =
  async {
    try
      let! a = square 12
      return a + 1
    finally
      log.Add("async finally")
  }

// task: let!, do!, Task.WhenAll, try/with, ValueTask and a loop.
let taskSum (n: int) =
  task {
    let mutable total = 0
    for i in 1..n do
      let! v = Task.FromResult(i)
      total <- total + v
    do! Task.Yield()
    return total
  }

let taskCatch () =
  task {
    try
      let! _ = Task.Run(fun () -> (raise (InvalidOperationException("task failure")) : int))
      return "no exception"
    with :? InvalidOperationException as e -> return "caught " + e.Message
  }

let valueTaskWork () =
  task {
    let! v = ValueTask<int>(41)
    return v + 1
  }

// A builder of the program's own: a maybe monad with bind, return, zero and combine.
type MaybeBuilder() =
  member _.Bind(m: 'a option, f: 'a -> 'b option) = Option.bind f m
  member _.Return(x: 'a) = Some x
  member _.ReturnFrom(m: 'a option) = m
  member _.Zero() = Some()

let maybe = MaybeBuilder()

let parseInt (s: string) =
  match Int32.TryParse s with
  | true, v -> Some v
  | _ -> None

let addStrings a b =
  maybe {
    let! x = parseInt a
    let! y = parseInt b
    if y = 0 then return! None else return x / y
  }

// A state builder that threads a counter through.
type State<'s, 'a> = State of ('s -> 'a * 's)

type StateBuilder() =
  member _.Return(x) = State(fun s -> x, s)
  member _.Bind(State m, f) =
    State(fun s ->
      let a, s' = m s
      let (State n) = f a
      n s')

let state = StateBuilder()
let tick = State(fun s -> s, s + 1)
let runState (State f) s = f s

let labelled name =
  state {
    let! a = tick
    let! b = tick
    return sprintf "%s:%d,%d" name a b
  }

[<EntryPoint>]
let main _ =
  printfn "countdown: %A" (countdown 5 |> Seq.toList)
  printfn "even squares: %A" (naturals |> Seq.filter (fun x -> x % 2 = 0) |> Seq.map (fun x -> x * x) |> Seq.take 6 |> Seq.toList)
  printfn "first two guarded: %A" (guarded |> Seq.take 2 |> Seq.toList)
  printfn "all guarded: %d" (guarded |> Seq.sum)
  log |> Seq.iter (printfn "  %s")
  log.Clear()
  printfn "list comprehension: %A" [ for x in 1..4 do for y in x..4 do if (x + y) % 3 = 0 then yield (x, y) ]
  printfn "array comprehension: %A" [| for i in 0..5 -> i * 10 |]
  printfn "sumAsync: %d" (sumAsync [ 1..100 ] |> Async.RunSynchronously)
  printfn "parallel: %A" ([ 1..8 ] |> List.map square |> Async.Parallel |> Async.RunSynchronously)
  printfn "failing: %d" (Async.RunSynchronously failing)
  printfn "withFinally: %d" (Async.RunSynchronously withFinally)
  log |> Seq.iter (printfn "  %s")
  printfn "taskSum: %d" (taskSum 1000).Result
  printfn "taskCatch: %s" (taskCatch ()).Result
  printfn "valueTask: %d" (valueTaskWork ()).Result
  let all = Task.WhenAll([| for i in 1..5 -> taskSum i |]).Result
  printfn "whenAll: %A" all
  printfn "maybe: %A %A %A" (addStrings "84" "2") (addStrings "x" "2") (addStrings "1" "0")
  let results, final = runState (state {
                                   let! a = labelled "a"
                                   let! b = labelled "b"
                                   return [ a; b ] }) 10
  printfn "state: %A final %d" results final
  let lz = lazy (printfn "  forcing"; 6 * 7)
  printfn "lazy created, forced: %b" lz.IsValueCreated
  printfn "lazy value: %d %d" lz.Value lz.Value
  0

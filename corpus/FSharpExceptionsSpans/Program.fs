// Exceptions (F# exception types, try/with with patterns and guards, reraise, try/finally,
// use, failwith, invalidArg, exceptions across closures) and byref code: byref, inref and
// outref parameters, Span and ReadOnlySpan over arrays, strings and stack memory, a byref-like
// struct, mutable structs changed through references.
module Weft.Corpus.FSharpExceptionsSpans.Program

#nowarn "9" // NativePtr.stackalloc

open System
open System.Runtime.CompilerServices
open Microsoft.FSharp.NativeInterop

exception ParseError of string * int
exception Fatal of code: int

let log = ResizeArray<string>()

let parse (s: string) =
  s.Split(',')
  |> Array.mapi (fun i part ->
    match Int32.TryParse(part.Trim()) with
    | true, v -> v
    | _ -> raise (ParseError(part, i)))

let safeParse s =
  try
    Ok(parse s |> Array.sum)
  with
  | ParseError(text, index) when text.Trim() = "" -> Error(sprintf "empty field %d" index)
  | ParseError(text, index) -> Error(sprintf "bad field %d: '%s'" index text)

type Resource(name: string) =
  do log.Add("acquire " + name)
  member _.Use(fail: bool) = if fail then failwithf "failure in %s" name else log.Add("use " + name)
  interface IDisposable with
    member _.Dispose() = log.Add("release " + name)

let nested fail =
  use outer = new Resource("outer")
  try
    use inner = new Resource("inner")
    try
      inner.Use fail
      outer.Use false
      "done"
    finally
      log.Add("finally inner")
  with Failure msg ->
    log.Add("caught " + msg)
    "recovered"

let rethrows () =
  try
    try
      raise (Fatal 42)
    with Fatal code ->
      log.Add(sprintf "logging %d, rethrowing" code)
      reraise ()
  with
  | Fatal code -> sprintf "outer saw code %d" code

let checkArg x =
  try
    if x < 0 then invalidArg "x" "must not be negative"
    if x = 0 then nullArg "x"
    if x > 100 then invalidOp "too big"
    sprintf "fine %d" x
  with
  | :? ArgumentNullException as e -> "null: " + e.ParamName
  | :? ArgumentException as e -> "argument: " + e.ParamName
  | :? InvalidOperationException as e -> "operation: " + e.Message

let runtimeErrors () =
  [ (fun () -> let a = [| 1 |] in string a.[3])
    (fun () -> let z = 0 in string (10 / z))
    (fun () -> let o = box "s" in string (unbox<int> o))
    (fun () -> string (List.head ([]: int list)))
    (fun () -> string (Map.empty<int, int>.[7])) ]
  |> List.map (fun f ->
    try f () with e -> e.GetType().Name)

// byref, inref, outref.
let increment (x: byref<int>) = x <- x + 1
let sumRef (x: inref<int>) (y: inref<int>) = x + y

type Arith =
  static member DivRem(a: int, b: int, rem: outref<int>) =
    rem <- a % b
    a / b

[<Struct>]
type Counter =
  val mutable Count: int
  member c.Bump() = c.Count <- c.Count + 1

let bumpAll (counters: Counter[]) =
  for i in 0 .. counters.Length - 1 do
    let c = &counters.[i]
    c.Bump()
    c.Count <- c.Count * 10

[<Struct; IsByRefLike>]
type Window =
  val Data: Span<int>
  new(d) = { Data = d }
  member w.Sum() =
    let mutable s = 0
    for x in w.Data do
      s <- s + x
    s

let spanWork () =
  let arr = [| 1..10 |]
  let span = Span<int>(arr)
  let middle = span.Slice(3, 4)
  middle.Fill(0)
  let window = Window(span.Slice(0, 5))
  let stack = NativePtr.stackalloc<int> 8
  let onStack = Span<int>(NativePtr.toVoidPtr stack, 8)
  for i in 0 .. onStack.Length - 1 do
    onStack.[i] <- i * i
  let text = "alpha,beta,gamma".AsSpan()
  let comma = text.IndexOf(',')
  let first = text.Slice(0, comma).ToString()
  let last = text.Slice(text.LastIndexOf(',') + 1).ToString()
  let bytes = Span<byte>(Array.zeroCreate<byte> 4)
  BitConverter.TryWriteBytes(bytes, 0x01020304) |> ignore
  sprintf "array %A window %d stack %d words %s/%s bytes %A" arr (window.Sum()) (onStack.ToArray() |> Array.sum) first last (bytes.ToArray())

[<EntryPoint>]
let main _ =
  for s in [ "1, 2, 3"; "4, x, 6"; "7, , 9" ] do
    printfn "%s -> %A" s (safeParse s)
  printfn "nested ok: %s" (nested false)
  printfn "nested failing: %s" (nested true)
  log |> Seq.iter (printfn "  %s")
  log.Clear()
  printfn "%s" (rethrows ())
  log |> Seq.iter (printfn "  %s")
  for x in [ 5; -1; 0; 500 ] do
    printfn "checkArg %d: %s" x (checkArg x)
  printfn "runtime errors: %A" (runtimeErrors ())
  let ex = Fatal 7
  printfn "exception value: %s equal %b" (ex.GetType().Name) (ex = Fatal 7)
  let mutable n = 41
  increment &n
  let a = 10
  let b = 32
  printfn "byref %d inref %d" n (sumRef &a &b)
  let mutable rem = 0
  let q = Arith.DivRem(47, 5, &rem)
  printfn "outref %d rem %d" q rem
  let q2, rem2 = Arith.DivRem(50, 7)
  printfn "outref as tuple %d rem %d" q2 rem2
  let counters = Array.init 3 (fun i -> Counter(Count = i))
  bumpAll counters
  printfn "struct counters %A" (counters |> Array.map (fun c -> c.Count))
  printfn "%s" (spanWork ())
  let cell = ref 0
  for i in 1..10 do
    cell.Value <- cell.Value + i
  printfn "ref cell %d" cell.Value
  0

// Recursion millions of calls deep that runs in constant stack only because the F# compiler
// (--optimize+ --tailcalls+) marks the calls `tail.`: if a rewriter loses one, the program dies
// of a stack overflow instead of printing its results.
module Weft.Corpus.FSharpTailCalls.Program

open System

// Mutual recursion: each call is a `tail. call` of the other function.
let rec isEven (n: int) = if n = 0 then true else isOdd (n - 1)
and isOdd (n: int) = if n = 0 then false else isEven (n - 1)

// Continuation-passing style: the self-call becomes a loop, but every continuation invokes the
// one it wraps through `tail. callvirt FSharpFunc::Invoke`.
let rec sumCps (n: int) (k: int64 -> int64) : int64 =
  if n = 0 then k 0L else sumCps (n - 1) (fun s -> k (s + int64 n))

// A tree walk in CPS: an unbalanced tree half a million nodes deep.
type Tree =
  | Leaf
  | Node of Tree * int * Tree

let rec buildLeft (n: int) (acc: Tree) = if n = 0 then acc else buildLeft (n - 1) (Node(acc, n, Leaf))

let rec sizeCps (t: Tree) (k: int -> int) : int =
  match t with
  | Leaf -> k 0
  | Node(l, _, r) -> sizeCps l (fun ls -> sizeCps r (fun rs -> k (ls + rs + 1)))

// More arguments than the caller has: CoreCLR makes these tail calls through its helper.
let rec spreadA (n: int) (acc: int64) =
  if n = 0 then acc else spreadB (n - 1) acc 1L 2L 3L 4L 5L 6L 7L
and spreadB (n: int) (acc: int64) a b c d e f g =
  if n = 0 then acc else spreadA (n - 1) (acc + a + b + c + d + e + f + g)

// Through an interface: a state machine whose states call each other's members.
type IState =
  abstract Step: int * int64 -> int64

let rec stateA : IState =
  { new IState with
      member _.Step(n, acc) = if n = 0 then acc else stateB.Step(n - 1, acc + 3L) }
and stateB : IState =
  { new IState with
      member _.Step(n, acc) = if n = 0 then acc else stateA.Step(n - 1, acc * 7L % 1000003L) }

// Through a generic function and a function value passed along.
let rec applyN<'T> (f: 'T -> 'T) (n: int) (x: 'T) : 'T = if n = 0 then x else bounce f (n - 1) (f x)
and bounce<'T> (f: 'T -> 'T) (n: int) (x: 'T) : 'T = applyN f n x

// A tail call from inside a match on a union and a string accumulation at the end.
type Op =
  | Inc of int
  | Dbl
  | Stop

let rec run (ops: Op[]) (pc: int) (acc: int64) (steps: int) =
  if steps = 0 then acc
  else
    match ops.[pc % ops.Length] with
    | Inc k -> next ops (pc + 1) (acc + int64 k) (steps - 1)
    | Dbl -> next ops (pc + 1) ((acc * 2L) % 1000000007L) (steps - 1)
    | Stop -> acc
and next ops pc acc steps = run ops pc acc steps

[<EntryPoint>]
let main _ =
  printfn "isEven 3000000 = %b" (isEven 3000000)
  printfn "isOdd 1234567 = %b" (isOdd 1234567)
  printfn "sumCps 1000000 = %d" (sumCps 1000000 id)
  let tree = buildLeft 500000 Leaf
  printfn "sizeCps of a tree 500000 deep = %d" (sizeCps tree id)
  printfn "spreadA 1000000 = %d" (spreadA 1000000 0L)
  printfn "states 1000000 = %d" (stateA.Step(1000000, 1L))
  printfn "applyN 1000000 = %d" (applyN (fun x -> (x * 31 + 7) % 65521) 1000000 1)
  printfn "applyN string = %s" (applyN (fun (s: string) -> if s.Length > 8 then s.Substring(1) + "x" else s + "y") 500001 "")
  printfn "run = %d" (run [| Inc 3; Dbl; Inc 5; Dbl; Inc 1 |] 0 1L 1000000)
  printfn "run with a stop = %d" (run [| Inc 1; Inc 2; Stop |] 0 0L 100)
  0

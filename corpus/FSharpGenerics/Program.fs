// Generics: inline functions with statically resolved member constraints, the constraints of
// .NET generics (comparison, equality, interfaces, struct, not struct, default constructor,
// unmanaged, null), generic classes and interfaces, flexible types and generic math.
module Weft.Corpus.FSharpGenerics.Program

open System
open System.Collections.Generic
open System.Numerics

// Statically resolved: any type with (+) and Zero.
let inline sumAll (xs: ^T list) : ^T = List.fold (+) LanguagePrimitives.GenericZero xs

let inline average (xs: ^T list) : ^T =
  LanguagePrimitives.DivideByInt (sumAll xs) (List.length xs)

let inline nameOf (x: ^T) = (^T: (member Name: string) x)

let inline create< ^T when ^T: (static member Create: int -> ^T)> n = (^T: (static member Create: int -> ^T) n)

type Vec =
  { X: float; Y: float }
  static member (+)(a: Vec, b: Vec) = { X = a.X + b.X; Y = a.Y + b.Y }
  static member Zero = { X = 0.0; Y = 0.0 }
  static member DivideByInt(v: Vec, n: int) = { X = v.X / float n; Y = v.Y / float n }
  static member Create(n: int) = { X = float n; Y = float -n }

type Named(name: string) =
  member _.Name = name

type City = { Name: string; Population: int }

// .NET constraints.
let largest<'T when 'T: comparison> (xs: 'T seq) = Seq.max xs
let distinctCount<'T when 'T: equality> (xs: 'T list) = xs |> List.distinct |> List.length
let makeAll<'T when 'T: (new: unit -> 'T)> n = List.init n (fun _ -> new 'T())
let defaultOf<'T when 'T: struct> () = Unchecked.defaultof<'T>
let orElse<'T when 'T: not struct and 'T: null> (x: 'T) (fallback: 'T) = if isNull x then fallback else x
let sizeOfUnmanaged<'T when 'T: unmanaged> () = sizeof<'T>
let compareAll<'T when 'T :> IComparable<'T>> (a: 'T) (b: 'T) = a.CompareTo b

let genericMath<'T when 'T :> INumber<'T>> (xs: 'T list) =
  xs |> List.fold (fun (acc: 'T) (x: 'T) -> 'T.op_Addition(acc, 'T.op_Multiply(x, x))) 'T.Zero

// Flexible types: any sequence of any subtype.
let totalLength (xs: #seq<string>) = xs |> Seq.sumBy String.length

type IStack<'T> =
  abstract Push: 'T -> unit
  abstract Pop: unit -> 'T option
  abstract Count: int

type ListStack<'T>() =
  let items = List<'T>()
  interface IStack<'T> with
    member _.Push x = items.Add x
    member _.Pop() =
      if items.Count = 0 then None
      else
        let x = items.[items.Count - 1]
        items.RemoveAt(items.Count - 1)
        Some x
    member _.Count = items.Count

type Pair<'A, 'B>(a: 'A, b: 'B) =
  member _.First = a
  member _.Second = b
  member _.Swap() = Pair<'B, 'A>(b, a)
  member _.Map(f: 'B -> 'C) = Pair<'A, 'C>(a, f b)
  override _.ToString() = sprintf "(%A, %A)" a b

type Cache<'K, 'V when 'K: equality>(load: 'K -> 'V) =
  let store = Dictionary<'K, 'V>(HashIdentity.Structural)
  let mutable misses = 0
  member _.Get key =
    match store.TryGetValue key with
    | true, v -> v
    | _ ->
      misses <- misses + 1
      let v = load key
      store.[key] <- v
      v
  member _.Misses = misses

[<Struct>]
type Wrapper<'T> =
  val Value: 'T
  new(v) = { Value = v }
  member w.Map(f: 'T -> 'U) = Wrapper<'U>(f w.Value)

let rec genericDepth<'T> (n: int) (x: 'T) : string =
  if n = 0 then typeof<'T>.Name else genericDepth<'T list> (n - 1) [ x ]

type Probe() =
  member val Hits = 0 with get, set

[<EntryPoint>]
let main _ =
  printfn "sumAll ints %d floats %.2f decimals %M bigints %A" (sumAll [ 1..10 ]) (sumAll [ 0.5; 1.25 ]) (sumAll [ 1.1M; 2.2M ]) (sumAll [ 10I; 20I ])
  printfn "average floats %.3f vecs %A" (average [ 1.0; 2.0; 4.0 ]) (average [ { X = 1.0; Y = 2.0 }; { X = 3.0; Y = 6.0 } ])
  printfn "sumAll vecs %A" (sumAll [ { X = 1.0; Y = 1.0 }; { X = 2.0; Y = 3.0 } ])
  printfn "names: %s %s" (nameOf (Named "named")) (nameOf { Name = "Oslo"; Population = 700000 })
  printfn "create: %A" (create<Vec> 4)
  printfn "largest %d %s %A" (largest [ 3; 9; 2 ]) (largest [ "pear"; "apple"; "zucchini" ]) (largest [ (1, "b"); (1, "c"); (0, "z") ])
  printfn "distinct %d %d" (distinctCount [ 1; 2; 1; 3; 2 ]) (distinctCount [ Some "a"; None; Some "a" ])
  let probes = makeAll<Probe> 3
  probes |> List.iteri (fun i p -> p.Hits <- i * 2)
  printfn "made %d probes, hits %A" probes.Length (probes |> List.map (fun p -> p.Hits))
  printfn "defaults %d %b %A" (defaultOf<int> ()) (defaultOf<bool> ()) (defaultOf<DateTime> ()).Ticks
  printfn "orElse %s %s" (orElse null "fallback") (orElse "value" "fallback")
  printfn "sizes %d %d %d" (sizeOfUnmanaged<int64> ()) (sizeOfUnmanaged<char> ()) (sizeOfUnmanaged<struct (byte * int)> ())
  printfn "compare %d %d" (compareAll 3 5) (compareAll "b" "a")
  printfn "generic math %d %.2f %M" (genericMath [ 1; 2; 3 ]) (genericMath [ 0.5; 1.5 ]) (genericMath [ 2M; 3M ])
  printfn "flexible %d %d" (totalLength [ "ab"; "cde" ]) (totalLength [| "x"; "yz" |])
  let stack = ListStack<string>() :> IStack<string>
  [ "a"; "b"; "c" ] |> List.iter stack.Push
  printfn "stack pop %A %A count %d" (stack.Pop()) (stack.Pop()) stack.Count
  let pair = Pair(1, "one")
  printfn "pair %O swapped %O mapped %O" pair (pair.Swap()) (pair.Map String.length)
  let cache = Cache<int * string, string>(fun (n, s) -> String.replicate n s)
  let results = [ cache.Get(2, "ab"); cache.Get(3, "x"); cache.Get(2, "ab") ]
  printfn "cache %A misses %d" results cache.Misses
  let w = Wrapper<int>(21).Map(fun x -> x * 2).Map(string)
  printfn "wrapper %s" w.Value
  printfn "depth %s" (genericDepth 3 'c')
  0

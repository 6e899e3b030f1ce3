// Pattern matching: active patterns (total, multi-case, partial, parameterised, struct partial),
// lists, arrays, tuples, records and unions, guards, type tests, `as`, and/or patterns.
module Weft.Corpus.FSharpPatterns.Program

open System
open System.Text.RegularExpressions

let (|Even|Odd|) n = if n % 2 = 0 then Even else Odd

let (|Positive|Zero|Negative|) (n: int) =
  if n > 0 then Positive n
  elif n = 0 then Zero
  else Negative(-n)

let (|Int|_|) (s: string) =
  match Int32.TryParse s with
  | true, v -> Some v
  | _ -> None

[<return: Struct>]
let (|Float|_|) (s: string) =
  match Double.TryParse(s, Globalization.NumberStyles.Float, Globalization.CultureInfo.InvariantCulture) with
  | true, v -> ValueSome v
  | _ -> ValueNone

let (|Regex|_|) pattern input =
  let m = Regex.Match(input, pattern)
  if m.Success then Some [ for g in m.Groups |> Seq.skip 1 -> g.Value ] else None

let (|DivisibleBy|_|) d n = if n % d = 0 then Some() else None

let fizz n =
  match n with
  | DivisibleBy 15 -> "FizzBuzz"
  | DivisibleBy 3 -> "Fizz"
  | DivisibleBy 5 -> "Buzz"
  | _ -> string n

let classify (s: string) =
  match s with
  | Int i -> sprintf "int %d (%s)" i (match i with Even -> "even" | Odd -> "odd")
  | Float f -> sprintf "float %g" f
  | Regex @"^(\w+)@(\w+)\.org$" [ user; host ] -> sprintf "mail %s at %s" user host
  | Regex @"^(\d+)-(\d+)$" [ a; b ] -> sprintf "range %s..%s" a b
  | "" -> "empty"
  | _ -> "other"

let rec describeList xs =
  match xs with
  | [] -> "empty"
  | [ x ] -> sprintf "one: %d" x
  | [ x; y ] when x = y -> sprintf "a pair of %d" x
  | x :: (y :: _ as rest) when x < y -> sprintf "%d rising, then %s" x (describeList rest)
  | x :: rest -> sprintf "%d, then %d more" x (List.length rest)

let describeArray arr =
  match arr with
  | [||] -> "no elements"
  | [| a |] -> sprintf "just %s" a
  | [| a; b |] -> sprintf "%s and %s" a b
  | _ -> sprintf "%d elements from %s" arr.Length arr.[0]

type Shape =
  | Circle of float
  | Square of float
  | Poly of (float * float) list

type Order = { Id: int; Items: (string * int) list; Rush: bool }

let priority order =
  match order with
  | { Rush = true; Items = [] } -> "rush, nothing to do"
  | { Rush = true } -> "rush"
  | { Items = [ (_, n) ] } when n > 10 -> "one bulk item"
  | { Items = (name, _) :: _ } -> "normal, first " + name
  | _ -> "empty"

let describeObj (o: obj) =
  match o with
  | null -> "null"
  | :? int as i when i < 0 -> "negative int"
  | :? int as i -> sprintf "int %d" i
  | :? string as s -> sprintf "string of %d" s.Length
  | :? (int list) as l -> sprintf "int list of %d" l.Length
  | :? Exception as e -> "exception " + e.GetType().Name
  | _ -> "something: " + o.GetType().Name

let quadrant point =
  match point with
  | 0, 0 -> "origin"
  | 0, _ | _, 0 -> "axis"
  | x, y when x > 0 && y > 0 -> "I"
  | x, y when x < 0 && y > 0 -> "II"
  | x, y when x < 0 -> "III"
  | _ -> "IV"


[<EntryPoint>]
let main _ =
  printfn "%s" (String.Join(" ", [ for i in 1..15 -> fizz i ]))
  for s in [ "42"; "7"; "2.5e3"; "joe@mail.org"; "10-20"; ""; "what" ] do
    printfn "%-14s %s" (sprintf "'%s'" s) (classify s)
  for n in [ 5; 0; -3 ] do
    match n with
    | Positive p -> printfn "%d positive %d" n p
    | Zero -> printfn "%d zero" n
    | Negative m -> printfn "%d negative, magnitude %d" n m
  for xs in [ []; [ 1 ]; [ 2; 2 ]; [ 1; 2; 3; 1 ]; [ 5; 4; 3 ] ] do
    printfn "%A: %s" xs (describeList xs)
  for a in [ [||]; [| "a" |]; [| "a"; "b" |]; [| "x"; "y"; "z" |] ] do
    printfn "%s" (describeArray a)
  let area =
    function
    | Circle r -> 3.0 * r * r
    | Square s -> s * s
    | Poly((x0, y0) :: _ as pts) ->
      let closed = pts @ [ (x0, y0) ]
      (closed |> List.pairwise |> List.sumBy (fun ((a, b), (c, d)) -> a * d - b * c)) / 2.0 |> abs
    | Poly [] -> 0.0
  printfn "areas: %A" (List.map area [ Circle 1.0; Square 2.0; Poly [ (0.0, 0.0); (4.0, 0.0); (4.0, 3.0) ]; Poly [] ])
  for o in [ { Id = 1; Items = []; Rush = true }; { Id = 2; Items = [ ("x", 1) ]; Rush = true }
             { Id = 3; Items = [ ("bolts", 50) ]; Rush = false }; { Id = 4; Items = [ ("nut", 1); ("a", 2) ]; Rush = false }
             { Id = 5; Items = []; Rush = false } ] do
    printfn "order %d: %s" o.Id (priority o)
  for o in [ box null; box -4; box 9; box "hello"; box [ 1; 2 ]; box (ArgumentException()); box 2.5 ] do
    printfn "%s" (describeObj o)
  printfn "quadrants: %A" (List.map quadrant [ (0, 0); (0, 5); (1, 1); (-1, 1); (-1, -1); (1, -1) ])
  let (a, b) as pair = (3, "three")
  printfn "as pattern: %d %s %A" a b pair
  let words = "the quick brown fox jumps over the lazy dog".Split(' ')
  let counts =
    words
    |> Array.countBy (fun w -> match w.Length with 3 -> "three" | 4 | 5 -> "four or five" | _ -> "longer")
    |> Array.sortBy fst
  printfn "lengths: %A" counts
  0

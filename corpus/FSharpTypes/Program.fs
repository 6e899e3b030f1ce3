// Discriminated unions and records, reference and struct, with their generated structural
// equality, comparison and hashing; classes, interfaces, object expressions, units of measure,
// enums, options and anonymous records.
module Weft.Corpus.FSharpTypes.Program

open System

type Shape =
  | Circle of radius: float
  | Rect of width: float * height: float
  | Triangle of a: float * b: float * c: float
  | Empty

let area shape =
  match shape with
  | Circle r -> Math.PI * r * r
  | Rect(w, h) -> w * h
  | Triangle(a, b, c) ->
    let s = (a + b + c) / 2.0
    sqrt (s * (s - a) * (s - b) * (s - c))
  | Empty -> 0.0

// A recursive union: an expression language with an evaluator and a simplifier.
type Expr =
  | Num of int
  | Var of string
  | Add of Expr * Expr
  | Mul of Expr * Expr
  | Neg of Expr
  | Let of string * Expr * Expr

let rec eval (env: Map<string, int>) expr =
  match expr with
  | Num n -> n
  | Var v -> env.[v]
  | Add(a, b) -> eval env a + eval env b
  | Mul(a, b) -> eval env a * eval env b
  | Neg e -> -(eval env e)
  | Let(name, value, body) -> eval (env.Add(name, eval env value)) body

let rec simplify expr =
  match expr with
  | Add(Num 0, e) | Add(e, Num 0) -> simplify e
  | Mul(Num 1, e) | Mul(e, Num 1) -> simplify e
  | Mul(Num 0, _) | Mul(_, Num 0) -> Num 0
  | Add(a, b) -> Add(simplify a, simplify b)
  | Mul(a, b) -> Mul(simplify a, simplify b)
  | Neg(Neg e) -> simplify e
  | Neg e -> Neg(simplify e)
  | Let(n, v, b) -> Let(n, simplify v, simplify b)
  | e -> e

let rec show expr =
  match expr with
  | Num n -> string n
  | Var v -> v
  | Add(a, b) -> sprintf "(%s + %s)" (show a) (show b)
  | Mul(a, b) -> sprintf "%s * %s" (show a) (show b)
  | Neg e -> "-" + show e
  | Let(n, v, b) -> sprintf "let %s = %s in %s" n (show v) (show b)

[<Struct>]
type Money =
  | Cents of cents: int64
  | Unknown

[<Struct>]
type Point = { X: int; Y: int }

type Person =
  { Name: string
    Age: int
    Email: string option }

[<CustomEquality; NoComparison>]
type CaseInsensitive =
  { Text: string }
  override this.Equals(o) =
    match o with
    | :? CaseInsensitive as c -> String.Equals(this.Text, c.Text, StringComparison.OrdinalIgnoreCase)
    | _ -> false
  override this.GetHashCode() = this.Text.ToUpperInvariant().Length

type IGreeter =
  abstract Greet: string -> string
  abstract Name: string

type Greeter(greeting: string) =
  let mutable count = 0
  member _.Count = count
  interface IGreeter with
    member _.Greet who =
      count <- count + 1
      sprintf "%s, %s!" greeting who
    member _.Name = "Greeter"

[<AbstractClass>]
type Animal(name: string) =
  member _.Name = name
  abstract Sound: string
  default _.Sound = "..."
  override this.ToString() = sprintf "%s says %s" this.Name this.Sound

type Dog(name) =
  inherit Animal(name)
  override _.Sound = "woof"

type Fish(name) =
  inherit Animal(name)

type Color =
  | Red = 1
  | Green = 2
  | Blue = 4

[<Measure>]
type m

[<Measure>]
type s

let speed (d: float<m>) (t: float<s>) = d / t

type Counter() =
  static let mutable created = 0
  do created <- created + 1
  static member Created = created
  member val Step = 1 with get, set
  member this.Next(x) = x + this.Step

[<EntryPoint>]
let main _ =
  for s in [ Circle 1.0; Rect(2.0, 3.5); Triangle(3.0, 4.0, 5.0); Empty ] do
    printfn "%A -> %.4f" s (area s)
  let e = Let("x", Add(Num 3, Num 0), Mul(Add(Var "x", Num 2), Mul(Num 1, Neg(Neg(Var "x")))))
  printfn "%s" (show e)
  printfn "%s" (show (simplify e))
  printfn "eval: %d %d" (eval Map.empty e) (eval Map.empty (simplify e))
  printfn "union equality: %b %b" (Add(Num 1, Var "a") = Add(Num 1, Var "a")) (Num 1 = Num 2)
  printfn "union comparison: %A" (List.sort [ Rect(1.0, 2.0); Circle 3.0; Empty; Circle 1.0 ])
  let money = [ Cents 250L; Unknown; Cents 99L ]
  let total = money |> List.sumBy (function Cents c -> c | Unknown -> 0L)
  printfn "struct union: %A total %d, sizeof %d" money total sizeof<Money>
  let p = { X = 3; Y = 4 }
  let q = { p with Y = 10 }
  printfn "struct record: %A %A equal %b compare %d" p q (p = q) (compare p q)
  let ann = { Name = "Ann"; Age = 41; Email = Some "ann@example.org" }
  let bob = { ann with Name = "Bob"; Email = None }
  printfn "record: %A" ann
  printfn "copy: %s %d %A" bob.Name bob.Age bob.Email
  printfn "sorted: %A" ([ bob; ann; { bob with Age = 30 } ] |> List.sort |> List.map (fun p -> p.Name, p.Age))
  printfn "hash equal: %b" (hash ann = hash { ann with Age = 41 })
  printfn "custom equality: %b %b" ({ Text = "Hello" } = { Text = "HELLO" }) ({ Text = "a" } = { Text = "b" })
  let g = Greeter("Hello")
  let ig = g :> IGreeter
  printfn "%s %s %s count %d" ig.Name (ig.Greet "world") (ig.Greet "F#") g.Count
  let shouter =
    { new IGreeter with
        member _.Greet who = (who + "!").ToUpperInvariant()
        member _.Name = "object expression" }
  printfn "%s: %s" shouter.Name (shouter.Greet "quiet")
  for a in [ Dog("Rex") :> Animal; Fish("Nemo") :> Animal ] do
    printfn "%O" a
  let c = Color.Red ||| Color.Blue
  printfn "enum: %A %d has blue %b" Color.Green (int c) (c.HasFlag Color.Blue)
  printfn "speed: %.2f m/s" (float (speed 100.0<m> 9.58<s>))
  let counters = [ Counter(); Counter(Step = 5) ]
  printfn "counters: %d created, next %A" Counter.Created (counters |> List.map (fun c -> c.Next 10))
  let anon = {| Id = 7; Tags = [ "a"; "b" ] |}
  let anon2 = {| anon with Extra = true |}
  printfn "anonymous: %d %A %b" anon.Id anon.Tags anon2.Extra
  let struct (sa, sb) = struct (1, "two")
  printfn "struct tuple: %d %s" sa sb
  let opts = [ Some 1; None; Some 3 ]
  printfn "options: %A %d" (List.choose id opts) (opts |> List.sumBy (Option.defaultValue 10))
  let vopt = ValueSome 5
  printfn "voption: %A %A" vopt (ValueOption.map ((*) 2) vopt)
  0

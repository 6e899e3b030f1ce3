// A JSON reader's shape: Read() switches over an enum state in a loop and is called in a loop
// (arms sharing one section, arms to the default, a section left by `break`), and ReadChars()
// repeats a read `do { ... } while (total < required)` that a `break` also leaves: what arrives
// after the loop's condition is not only the condition's fall-through.

namespace Weft.BranchPatterns;

public enum State { Start, Complete, Property, ObjectStart, Object, ArrayStart, Array, Closed, PostValue, ConstructorStart, Constructor, Error, Finished }

public class Reader
{
    State _state;
    int _pos;
    readonly int[] _items;
    int _charsUsed;
    readonly int _chunk;

    public Reader(int[] items, int chunk) { _items = items; _chunk = chunk; }

    public bool Read()
    {
        while (true)
        {
            switch (_state)
            {
                case State.Start:
                case State.Property:
                case State.ArrayStart:
                case State.Array:
                case State.ConstructorStart:
                case State.Constructor:
                    return ParseValue();
                case State.ObjectStart:
                case State.Object:
                    return ParseObject();
                case State.PostValue:
                    if (ParsePostValue())
                    {
                        return true;
                    }
                    break;
                case State.Finished:
                    if (_pos < _items.Length)
                    {
                        _state = State.Start;
                        return true;
                    }
                    return false;
                default:
                    throw new InvalidOperationException("Unexpected state: " + _state);
            }
        }
    }

    bool ParseValue()
    {
        if (_pos >= _items.Length) { _state = State.Finished; return false; }
        int v = _items[_pos++];
        _state = v switch { 0 => State.ObjectStart, 1 => State.PostValue, 2 => State.Finished, _ => State.Array };
        return true;
    }

    bool ParseObject()
    {
        _state = State.PostValue;
        return true;
    }

    bool ParsePostValue()
    {
        if (_pos >= _items.Length) { _state = State.Finished; return false; }
        _state = State.Start;
        return (_items[_pos] & 1) == 0;
    }

    public int ReadChars(int required)
    {
        int total = 0;
        do
        {
            int read = ReadData(required - total);
            if (read == 0)
                break;
            total += read;
        } while (total < required);
        if (total < required)
            return -1;
        return total;
    }

    int ReadData(int want)
    {
        int left = _items.Length * 4 - _charsUsed;
        int n = Math.Min(Math.Min(want, _chunk), left);
        _charsUsed += n;
        return n;
    }

    public static int Run()
    {
        int reads = 0;
        var r = new Reader(new[] { 1, 0, 3, 2, 1, 4 }, 3);
        while (r.Read())
            reads++;
        var r2 = new Reader(new[] { 5, 5 }, 2);
        reads += r2.ReadChars(3) + r2.ReadChars(4) + r2.ReadChars(5);
        return reads;
    }
}

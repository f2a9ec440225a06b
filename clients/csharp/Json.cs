// Just enough JSON for the client: objects, arrays, strings, numbers, booleans, null.
using System;
using System.Collections.Generic;
using System.Globalization;
using System.Text;

namespace Loci
{
    public static class Json
    {
        public static string Write(object value)
        {
            var text = new StringBuilder();
            Write(value, text);
            return text.ToString();
        }

        static void Write(object value, StringBuilder text)
        {
            if (value == null) text.Append("null");
            else if (value is string) WriteString((string)value, text);
            else if (value is bool) text.Append((bool)value ? "true" : "false");
            else if (value is int || value is long || value is double) text.Append(Convert.ToString(value, CultureInfo.InvariantCulture));
            else if (value is Dictionary<string, object>)
            {
                text.Append('{');
                var first = true;
                foreach (var entry in (Dictionary<string, object>)value)
                {
                    if (!first) text.Append(',');
                    first = false;
                    WriteString(entry.Key, text);
                    text.Append(':');
                    Write(entry.Value, text);
                }
                text.Append('}');
            }
            else if (value is List<object>)
            {
                text.Append('[');
                var items = (List<object>)value;
                for (var index = 0; index < items.Count; index++) { if (index > 0) text.Append(','); Write(items[index], text); }
                text.Append(']');
            }
            else throw new ArgumentException("cannot write " + value.GetType());
        }

        static void WriteString(string value, StringBuilder text)
        {
            text.Append('"');
            foreach (var c in value)
            {
                if (c == '"' || c == '\\') text.Append('\\').Append(c);
                else if (c < ' ') text.Append("\\u").Append(((int)c).ToString("x4"));
                else text.Append(c);
            }
            text.Append('"');
        }

        public static object Parse(string text)
        {
            var position = 0;
            var value = ParseValue(text, ref position);
            return value;
        }

        static void Skip(string text, ref int position) { while (position < text.Length && char.IsWhiteSpace(text[position])) position++; }

        static object ParseValue(string text, ref int position)
        {
            Skip(text, ref position);
            var c = text[position];
            if (c == '{')
            {
                var result = new Dictionary<string, object>();
                position++;
                Skip(text, ref position);
                if (text[position] == '}') { position++; return result; }
                while (true)
                {
                    Skip(text, ref position);
                    var key = ParseString(text, ref position);
                    Skip(text, ref position);
                    position++; // ':'
                    result[key] = ParseValue(text, ref position);
                    Skip(text, ref position);
                    if (text[position++] == '}') return result;
                }
            }
            if (c == '[')
            {
                var result = new List<object>();
                position++;
                Skip(text, ref position);
                if (text[position] == ']') { position++; return result; }
                while (true)
                {
                    result.Add(ParseValue(text, ref position));
                    Skip(text, ref position);
                    if (text[position++] == ']') return result;
                }
            }
            if (c == '"') return ParseString(text, ref position);
            if (text.Substring(position).StartsWith("true")) { position += 4; return true; }
            if (text.Substring(position).StartsWith("false")) { position += 5; return false; }
            if (text.Substring(position).StartsWith("null")) { position += 4; return null; }
            var start = position;
            while (position < text.Length && "+-0123456789.eE".IndexOf(text[position]) >= 0) position++;
            return double.Parse(text.Substring(start, position - start), CultureInfo.InvariantCulture);
        }

        static string ParseString(string text, ref int position)
        {
            var result = new StringBuilder();
            position++; // opening quote
            while (text[position] != '"')
            {
                var c = text[position++];
                if (c != '\\') { result.Append(c); continue; }
                var escaped = text[position++];
                switch (escaped)
                {
                    case 'n': result.Append('\n'); break;
                    case 't': result.Append('\t'); break;
                    case 'r': result.Append('\r'); break;
                    case 'b': result.Append('\b'); break;
                    case 'f': result.Append('\f'); break;
                    case 'u': result.Append((char)Convert.ToInt32(text.Substring(position, 4), 16)); position += 4; break;
                    default: result.Append(escaped); break;
                }
            }
            position++;
            return result.ToString();
        }
    }
}

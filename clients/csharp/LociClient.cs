// A small typed client for loci's HTTP API, for Unity and other .NET hosts. No dependencies
// beyond System.dll (builds with Mono's mcs: mcs -out:unity-flow.exe LociClient.cs Json.cs UnityFlow.cs).
using System;
using System.Collections.Generic;
using System.IO;
using System.Net;
using System.Text;

namespace Loci
{
    /// <summary>An error answer from loci: its stable code, message and hint.</summary>
    public class LociException : Exception
    {
        public readonly int Status;
        public readonly string Code;
        public LociException(int status, string code, string message) : base(code + ": " + message) { Status = status; Code = code; }
    }

    /// <summary>One interaction as the Unity assistant logs it.</summary>
    public class Interaction
    {
        public string Id, Namespace, Prompt, Response, Outcome, Feedback;
        public bool MultiStep;
        public double Score;
    }

    public class LociClient
    {
        readonly string baseUrl, token;
        public LociClient(string baseUrl, string token) { this.baseUrl = baseUrl.TrimEnd('/'); this.token = token; }

        /// <summary>Logs one command with its outcome (success, error, cancelled) in a session namespace.</summary>
        public Interaction LogInteraction(string ns, string prompt, string response, string outcome, string feedback = null, bool multiStep = false)
        {
            var body = new Dictionary<string, object> { { "kind", "interaction" }, { "namespace", ns }, { "prompt", prompt }, { "response", response }, { "outcome", outcome }, { "multiStep", multiStep } };
            if (feedback != null) body["feedback"] = feedback;
            var record = (Dictionary<string, object>)((Dictionary<string, object>)Call("POST", "/v1/memory/records", body))["record"];
            return ToInteraction(record);
        }

        /// <summary>Past interactions relevant to a prompt, only those with this outcome when given. A new session's namespace answers an empty list.</summary>
        public List<Interaction> Recall(string query, string ns, string outcome = null, int topK = 5)
        {
            var body = new Dictionary<string, object> { { "query", query }, { "namespaces", new List<object> { ns } }, { "topK", topK }, { "kinds", new List<object> { "interaction" } } };
            if (outcome != null) body["outcome"] = outcome;
            var results = (List<object>)((Dictionary<string, object>)Call("POST", "/v1/memory/recall", body))["results"];
            var hits = new List<Interaction>();
            foreach (var result in results) hits.Add(ToInteraction((Dictionary<string, object>)result));
            return hits;
        }

        static Interaction ToInteraction(Dictionary<string, object> record)
        {
            var fields = (Dictionary<string, object>)record["fields"];
            object feedback, multiStep, score;
            return new Interaction
            {
                Id = (string)record["id"], Namespace = (string)record["namespace"],
                Prompt = (string)fields["prompt"], Response = (string)fields["response"], Outcome = (string)fields["outcome"],
                Feedback = fields.TryGetValue("feedback", out feedback) ? (string)feedback : null,
                MultiStep = fields.TryGetValue("multiStep", out multiStep) && multiStep is bool && (bool)multiStep,
                Score = record.TryGetValue("score", out score) ? Convert.ToDouble(score) : 0,
            };
        }

        object Call(string method, string path, Dictionary<string, object> body)
        {
            var request = (HttpWebRequest)WebRequest.Create(baseUrl + path);
            request.Method = method;
            request.ContentType = "application/json";
            request.Timeout = 30000;
            if (!string.IsNullOrEmpty(token)) request.Headers["Authorization"] = "Bearer " + token;
            if (body != null)
            {
                var bytes = Encoding.UTF8.GetBytes(Json.Write(body));
                using (var stream = request.GetRequestStream()) stream.Write(bytes, 0, bytes.Length);
            }
            try
            {
                using (var response = (HttpWebResponse)request.GetResponse())
                using (var reader = new StreamReader(response.GetResponseStream(), Encoding.UTF8)) return Json.Parse(reader.ReadToEnd());
            }
            catch (WebException failure)
            {
                var response = failure.Response as HttpWebResponse;
                if (response == null) throw;
                using (var reader = new StreamReader(response.GetResponseStream(), Encoding.UTF8))
                {
                    var error = (Dictionary<string, object>)((Dictionary<string, object>)Json.Parse(reader.ReadToEnd()))["error"];
                    throw new LociException((int)response.StatusCode, (string)error["code"], (string)error["message"]);
                }
            }
        }
    }
}

// A minimal C# client for the loci HTTP API (for the Unity assistant): log an interaction and
// recall similar successful ones. .NET's System.Text.Json; in Unity, JsonUtility reads the same names.
using System;
using System.Collections.Generic;
using System.Net.Http;
using System.Net.Http.Headers;
using System.Text;
using System.Text.Json;
using System.Text.Json.Serialization;
using System.Threading.Tasks;

public sealed class RememberRequest
{
    [JsonPropertyName("namespace")] public string Namespace { get; set; } = "";
    [JsonPropertyName("text")] public string Text { get; set; } = "";
    [JsonPropertyName("kind")] public string Kind { get; set; } = "interaction";
    [JsonPropertyName("metadata")] public Dictionary<string, object>? Metadata { get; set; }
}

public sealed class RecallRequest
{
    [JsonPropertyName("query")] public string Query { get; set; } = "";
    [JsonPropertyName("namespaces")] public List<string> Namespaces { get; set; } = new();
    [JsonPropertyName("topK")] public int TopK { get; set; } = 3;
    [JsonPropertyName("outcome")] public string? Outcome { get; set; }
}

public sealed class RecallHit
{
    [JsonPropertyName("id")] public string Id { get; set; } = "";
    [JsonPropertyName("namespace")] public string Namespace { get; set; } = "";
    [JsonPropertyName("text")] public string Text { get; set; } = "";
    [JsonPropertyName("score")] public double Score { get; set; }
}

public sealed class RecallResponse
{
    [JsonPropertyName("results")] public List<RecallHit> Results { get; set; } = new();
}

public sealed class LociClient
{
    private readonly HttpClient http;
    private readonly string baseUrl;

    public LociClient(HttpClient http, string baseUrl, string? token)
    {
        this.http = http;
        this.baseUrl = baseUrl.TrimEnd('/');
        if (token != null) http.DefaultRequestHeaders.Authorization = new AuthenticationHeaderValue("Bearer", token);
    }

    private async Task<string> Post(string path, object body)
    {
        var content = new StringContent(JsonSerializer.Serialize(body), Encoding.UTF8, "application/json");
        var response = await http.PostAsync(baseUrl + path, content);
        var text = await response.Content.ReadAsStringAsync();
        if (!response.IsSuccessStatusCode) throw new InvalidOperationException($"loci HTTP {(int)response.StatusCode}: {text}");
        return text;
    }

    public Task<string> Remember(string session, string prompt) =>
        Post("/v1/memory/records", new RememberRequest { Namespace = "unity/" + session, Text = prompt });

    public async Task<List<RecallHit>> Recall(string session, string prompt) =>
        JsonSerializer.Deserialize<RecallResponse>(await Post("/v1/memory/recall", new RecallRequest { Query = prompt, Namespaces = new() { "unity/" + session } }))!.Results;
}

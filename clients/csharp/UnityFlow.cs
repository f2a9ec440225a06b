// The Unity assistant's memory flow over loci: a new session recalls nothing (not an error),
// each executed command is logged with its outcome, and the next prompt recalls only the
// commands that worked. Prints what it saw as one line per step.
//   mono unity-flow.exe http://127.0.0.1:7420 TOKEN
using System;
using Loci;

public static class UnityFlow
{
    public static int Main(string[] args)
    {
        var client = new LociClient(args[0], args.Length > 1 ? args[1] : null);
        var session = "unity/session/" + DateTime.UtcNow.Ticks;
        Console.WriteLine("first-recall " + client.Recall("spawn enemies", session).Count);
        client.LogInteraction(session, "spawn three goblins near the gate", "Spawned 3 goblins at (10, 0, 4)", "success");
        client.LogInteraction(session, "spawn a dragon on the roof", "NullReferenceException: roof", "error", "the roof has no collider");
        client.LogInteraction(session, "spawn two archers on the wall", "Spawned 2 archers", "success", null, true);
        foreach (var hit in client.Recall("spawn enemies on the map", session, "success"))
            Console.WriteLine("success " + hit.Outcome + " " + hit.Prompt + (hit.MultiStep ? " [multi-step]" : ""));
        foreach (var hit in client.Recall("spawn enemies on the map", session, "error"))
            Console.WriteLine("error " + hit.Outcome + " " + hit.Prompt + " / " + hit.Feedback);
        try { client.Recall("x", "bad space"); Console.WriteLine("malformed accepted"); }
        catch (LociException failure) { Console.WriteLine("malformed " + failure.Status + " " + failure.Code); }
        return 0;
    }
}

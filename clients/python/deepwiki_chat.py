"""DeepWiki-open's chat flow over loci: each question is asked with the conversation's history,
answered, and the dialog turn appended, so the next question sees it.

    python3 deepwiki_chat.py http://127.0.0.1:7420 TOKEN "question one" "question two" ...

Without a chat model here, the "answer" names the best source (replace `answer` with your model
call; loci's own `loci ask` does the same with an OpenAI-compatible server)."""
import json
import sys

from loci_client import LociClient


def answer(question: str, context: dict) -> str:
    sources = context.get("sources") or []
    return f"See {sources[0]['path']}." if sources else "I found nothing on that."


def main() -> None:
    base_url, token, questions = sys.argv[1], sys.argv[2], sys.argv[3:]
    client = LociClient(base_url, token)
    conversation = "deepwiki-demo"
    transcript = []
    for question in questions:
        context = client.context(question, max_tokens=3000, conversation_id=conversation)
        reply = answer(question, context)
        client.add_turn(conversation, question, reply)
        transcript.append({"question": question, "answer": reply, "promptTokens": context["tokens"]})
    history = client.history(conversation, max_tokens=2000)
    print(json.dumps({"transcript": transcript, "history": history["messages"]}))


if __name__ == "__main__":
    main()

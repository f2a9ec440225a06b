"""A small typed client for loci's HTTP API (standard library only, Python 3.8+)."""
from __future__ import annotations

import json
import urllib.error
import urllib.parse
import urllib.request
from typing import Any, Dict, List, Optional


class LociError(Exception):
    """An error answer from loci: its stable code, message and hint."""

    def __init__(self, status: int, code: str, message: str, hint: Optional[str] = None) -> None:
        super().__init__(f"{code}: {message}" + (f" ({hint})" if hint else ""))
        self.status, self.code, self.hint = status, code, hint


class LociClient:
    """Talks to `loci serve` (http://127.0.0.1:<port>), sending the bearer token when given."""

    def __init__(self, base_url: str, token: Optional[str] = None, root: Optional[str] = None, timeout: float = 30.0) -> None:
        self.base_url = base_url.rstrip("/")
        self.token, self.root, self.timeout = token, root, timeout

    def _call(self, method: str, path: str, body: Optional[Dict[str, Any]] = None, query: Optional[Dict[str, Any]] = None) -> Any:
        params = {k: v for k, v in (query or {}).items() if v is not None}
        if self.root is not None:
            params.setdefault("root", self.root)
            if body is not None:
                body = {"root": self.root, **body}
        url = self.base_url + path + ("?" + urllib.parse.urlencode(params) if params else "")
        data = json.dumps({k: v for k, v in (body or {}).items() if v is not None}).encode() if body is not None else None
        request = urllib.request.Request(url, data=data, method=method, headers={"content-type": "application/json"})
        if self.token:
            request.add_header("authorization", f"Bearer {self.token}")
        try:
            with urllib.request.urlopen(request, timeout=self.timeout) as response:
                return json.loads(response.read() or b"null")
        except urllib.error.HTTPError as error:
            payload = json.loads(error.read() or b"{}").get("error", {})
            raise LociError(error.code, payload.get("code", "HTTP_ERROR"), payload.get("message", str(error)), payload.get("hint")) from None

    def search(self, query: str, top_k: int = 10, mode: Optional[str] = None) -> Dict[str, Any]:
        return self._call("POST", "/v1/search", {"query": query, "topK": top_k, "mode": mode})

    def context(self, question: str, max_tokens: int = 4000, conversation_id: Optional[str] = None) -> Dict[str, Any]:
        return self._call("POST", "/v1/context", {"question": question, "maxTokens": max_tokens, "conversationId": conversation_id})

    def add_turn(self, conversation_id: str, user_query: str, assistant_response: str) -> Dict[str, Any]:
        return self._call("POST", "/v1/memory/records", {"kind": "turn", "conversationId": conversation_id, "prompt": user_query, "response": assistant_response})["record"]

    def log_interaction(self, namespace: str, prompt: str, response: str, outcome: str, feedback: Optional[str] = None, multi_step: Optional[bool] = None) -> Dict[str, Any]:
        body = {"kind": "interaction", "namespace": namespace, "prompt": prompt, "response": response, "outcome": outcome, "feedback": feedback, "multiStep": multi_step}
        return self._call("POST", "/v1/memory/records", body)["record"]

    def recall(self, query: str, namespaces: Optional[List[str]] = None, top_k: int = 5, outcome: Optional[str] = None) -> List[Dict[str, Any]]:
        return self._call("POST", "/v1/memory/recall", {"query": query, "namespaces": namespaces, "topK": top_k, "outcome": outcome})["results"]

    def history(self, conversation_id: str, query: Optional[str] = None, max_tokens: int = 2000) -> Dict[str, Any]:
        return self._call("GET", f"/v1/memory/conversations/{urllib.parse.quote(conversation_id, safe='')}/history", query={"query": query, "maxTokens": max_tokens})

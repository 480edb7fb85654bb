"""What the judge says to the model: the request each guard sends with a reply it asks again about.

Each is sent off the record after the reply it is about; ``{slot}`` is what the guard found, ``{query}`` the user's
message. The own_words guard reads all of them (``GUARD_ASKS``): an answer made of our own requests is no answer.
"""

from __future__ import annotations

__all__ = ["NARRATED", "TEMPLATE", "COPIED_FORMAT", "UNKNOWN_CALL", "OWN_WORDS", "INVENTED", "CLOBBERING",
           "ANSWER_YOURSELF", "DECLINED", "CLAIMED_CHANGE", "DECLINED_UNREAD", "UNREAD",
           "GUARD_ASKS"]

# Sent (once per turn, and kept out of the history) when a reply describes a call instead of making it.
NARRATED = ("Do not describe a tool call or name a tool. Either make the call now, in the reply format, "
            "or answer my question yourself in plain sentences.")
# Sent the same way when a reply is a template ("The customer is [Customer Name].") instead of an answer.
TEMPLATE = ("Your reply has a placeholder, {slot}, where a value belongs. Call a tool to find the real value "
            "now, or say plainly that you could not find it.")
# Sent the same way when a reply copies the reply format's slot ("<your answer, in plain sentences>"): the
# 0.5B model did on "what is the capital of Italy?"; the template request above would send it to a tool.
COPIED_FORMAT = "Your reply copied {slot} from the reply format. Write the answer itself instead: {query}"
# Sent the same way when an answer writes a call to a tool that does not exist ({"tool": "change_port", ...}).
UNKNOWN_CALL = ("{slot} is not one of your tools. Call a tool from the list, in the reply format, or answer my "
                "question in plain sentences: {query}")
# Sent the same way when an answer is mostly a copy of our own instructions.
OWN_WORDS = ("Your reply repeats my instructions (\"{slot}\") instead of answering. Answer my question itself, "
             "in plain sentences, or call a tool if it needs one: {query}")
# Sent the same way, the call not run, when a call names a file nothing backs. Short, with the question last:
# asked with a longer text ("... If my question needs my files, find them first; otherwise just answer it, without
# tools: ..."), the 0.5B gave that text back as its answer to "Write me a two-line poem about the sea." in 3 runs
# of 3 (test split), and the turn ended with "could not finish".
INVENTED = "No file {slot} exists, and I asked for none. Answer without tools: {query}"
# Sent the same way, the call not run, when a write would replace most of a file the user asked to change.
CLOBBERING = ("Not run: write_file would replace all of {slot}, and your text keeps little of what it holds. To change "
              "part of it, call edit_file with old_content copied exactly from the file (read it first if you need "
              "to). My request: {query}")
# Sent, for a reply held to an answer, after a lookup or write the message did not ask for: "with what you
# already have" (the loop's usual words) drew "I don't have enough information" to "cheers! whats 9+10?" (1.5B).
ANSWER_YOURSELF = "Answer it yourself now, in plain sentences, without tools: {query}"
# Sent the same way when an answer refuses or says it does not know while saved memories sat beside the question.
DECLINED = ("You said \"{slot}\", but the saved memories beside my message are what I told you earlier. If one "
            "answers it, answer from it: {query}")
# Sent the same way when an answer says a change is made that no tool made.
CLAIMED_CHANGE = ("You said \"{slot}\", but no tool changed anything yet. Make the change with a tool now, then "
                  "answer: {query}")
# Sent the same way when an answer declines although the question's words point to a file here.
DECLINED_UNREAD = ("You said you do not know, but {slot} may hold it: look at it with a tool, then answer from what "
                   "it holds. My question: {query}")
# Sent the same way when an answer came without a tool although the message names a file that exists.
UNREAD = "{slot}: look at it with a tool before answering, then answer from what it holds. My question: {query}"

# Every guard's request, as own_words reads them (tests/agent/test_judge_order.py holds it to the table)
GUARD_ASKS = (NARRATED, TEMPLATE, COPIED_FORMAT, UNKNOWN_CALL, OWN_WORDS, INVENTED, CLOBBERING, DECLINED,
              CLAIMED_CHANGE, DECLINED_UNREAD, UNREAD)

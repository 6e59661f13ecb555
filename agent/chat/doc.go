// Package chat is the client of an OpenAI-compatible chat completions
// server: it streams an answer (Client.Stream), retries what is worth
// retrying, turns a server's failure into an APIError with a hint for the
// person, and finds the model's context window (Client.ProbeWindow). It
// knows nothing of tools, approval or sessions; the agent builds the
// requests and reads the Completion.
package chat

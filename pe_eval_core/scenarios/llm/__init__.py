"""The Anthropic Messages API seam shared by the live target and the live judge: one client
lifecycle per run, the Message Batches route, and list prices."""

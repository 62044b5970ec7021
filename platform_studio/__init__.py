"""Python entry points of the Desk platform (thin wrappers over the Node tools)."""

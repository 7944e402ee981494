"""Shipping: settings and start-up, the real entry point end to end, the README's generated
parts, the webhook server."""

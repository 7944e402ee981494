"""The Mini App's page in a real headless Chromium, driven from outside by its data-* contract."""

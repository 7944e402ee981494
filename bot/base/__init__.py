"""What every layer above storage uses: the settings, the words, a worker's lifeline."""

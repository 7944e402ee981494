"""The Telegram chat's views: the handlers of updates, the presenter, the in-group hands."""

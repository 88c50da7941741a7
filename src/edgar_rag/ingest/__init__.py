"""Turning a filing's bytes into clean text, Items, labelled table rows, XBRL facts and chunks."""

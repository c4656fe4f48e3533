"""Mangala rules of the Turkish Mind and Intelligence Games Federation (MG-*)."""

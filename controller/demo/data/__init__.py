"""The bundled sample match of ``hakem demo`` (MIT, see LICENSE.md beside it)."""

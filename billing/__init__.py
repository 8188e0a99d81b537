"""The provider's usage and invoice lines, mapped once per provider and reconciled against what
the contract allows."""

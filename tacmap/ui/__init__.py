"""The Qt user interface: windows, the map, panels. Reads state, sends commands."""

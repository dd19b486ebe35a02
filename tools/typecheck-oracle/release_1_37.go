package main

const release = "1.37"
